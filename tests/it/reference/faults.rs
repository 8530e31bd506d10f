//! The faults of the reference as a list: each names an observable rule of the catalogue, every
//! observable rule has one, their names are unique and round-trip, and `covenant list faults`
//! prints them all.

use covenant::catalogue::Catalogue;
use covenant::reference::{render_list, Fault, FaultSet};

#[test]
fn fault_set_has_room_for_every_fault() {
    assert!(Fault::all().len() <= 256);
}

#[test]
fn every_fault_names_an_observable_rule_of_the_catalogue() {
    let catalogue = Catalogue::embedded();
    for fault in Fault::all() {
        let rule = catalogue.rule(fault.rule());
        assert!(
            rule.is_some(),
            "{} names unknown rule {}",
            fault,
            fault.rule()
        );
        assert!(rule.is_some_and(|r| r.observable), "{fault}");
    }
}

#[test]
fn every_observable_rule_has_a_fault() {
    let catalogue = Catalogue::embedded();
    for rule in catalogue.rules.iter().filter(|r| r.observable) {
        assert!(
            Fault::all().iter().any(|f| f.rule() == rule.id),
            "no fault breaks {}",
            rule.id
        );
    }
}

#[test]
fn names_are_unique_kebab_case_and_round_trip() {
    let mut seen = std::collections::HashSet::new();
    for fault in Fault::all() {
        let name = fault.name();
        assert!(seen.insert(name), "duplicate {name}");
        assert!(name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
        assert_eq!(Fault::from_name(name), Some(*fault));
    }
}

#[test]
fn list_prints_one_line_per_fault_then_the_count() {
    let text = render_list();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), Fault::all().len() + 1);
    assert_eq!(
        lines.last(),
        Some(&format!("{} faults", Fault::all().len()).as_str())
    );
    assert!(lines[0].contains(Fault::all()[0].rule()));
}

#[test]
fn unknown_names_are_refused_with_a_pointer_to_the_list() {
    let err = FaultSet::from_names(["rcv-trade-name-max-ignored", "nope"]).unwrap_err();
    assert!(err.to_string().contains("`nope`"));
    assert!(err.to_string().contains("covenant list faults"));
    let set = FaultSet::from_names(["rcv-trade-name-max-ignored"]).unwrap();
    assert!(set.has(Fault::TradeNameMaxIgnored));
    assert!(!set.has(Fault::Create200));
}
