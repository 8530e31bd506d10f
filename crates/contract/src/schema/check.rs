//! `covenant schemas check`: the schema set, its examples and operations.json, checked against
//! the 2020-12 meta-schema and the rule catalogue. The core returns problems as data so that
//! tests can feed it a broken copy.

use super::operations::{parse_operations, Operation, OperationId};
use super::registry::Registry;
use super::Problem;
use crate::catalogue::Catalogue;
use crate::exit;
use serde_json::Value;
use std::collections::HashSet;

/// What `schemas check` found.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub problems: Vec<Problem>,
    pub schemas: usize,
    pub examples: usize,
    pub negative_examples: usize,
}

impl CheckReport {
    /// The one-line summary printed last.
    pub fn summary(&self) -> String {
        let verdict = match self.problems.len() {
            0 => "all good".to_string(),
            1 => "1 problem".to_string(),
            n => format!("{n} problems"),
        };
        format!(
            "{} schemas, {} examples, {} negative examples: {verdict}",
            self.schemas, self.examples, self.negative_examples
        )
    }
}

/// Checks a schema set (stem, text), an operations file and the catalogue against each other.
pub fn check_sources<S: AsRef<str>, T: AsRef<str>>(
    schemas: &[(S, T)],
    operations: &str,
    catalogue: &Catalogue,
) -> CheckReport {
    let (registry, problems) = Registry::build(schemas);
    let mut report = CheckReport {
        problems,
        schemas: schemas.len(),
        ..CheckReport::default()
    };
    let known: Vec<String> = registry.names().map(str::to_string).collect();
    for stem in &known {
        let Some(doc) = registry.schema(stem) else {
            continue;
        };
        let file = format!("schemas/{stem}.json");
        check_rule_names(&file, "", doc, catalogue, &mut report.problems);
        check_examples(&registry, stem, &file, doc, &mut report);
        check_negative_examples(&registry, stem, &file, doc, catalogue, &mut report);
    }
    let stems: HashSet<&str> = schemas.iter().map(|(stem, _)| stem.as_ref()).collect();
    check_operations(operations, &stems, catalogue, &mut report.problems);
    check_catalogue_stems(catalogue, &stems, &mut report.problems);
    report
}

/// Every `x-rule` and `x-keyword-rules` value names a catalogue rule.
fn check_rule_names(
    file: &str,
    pointer: &str,
    node: &Value,
    catalogue: &Catalogue,
    problems: &mut Vec<Problem>,
) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{pointer}/{}", escape(key));
                if key == "x-negative-examples" || key == "examples" {
                    continue;
                }
                if key == "x-rule" {
                    require_rule(file, &here, value.as_str(), catalogue, problems);
                } else if key == "x-keyword-rules" {
                    for (keyword, rule) in value.as_object().into_iter().flatten() {
                        let at = format!("{here}/{}", escape(keyword));
                        require_rule(file, &at, rule.as_str(), catalogue, problems);
                    }
                } else {
                    check_rule_names(file, &here, value, catalogue, problems);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                check_rule_names(
                    file,
                    &format!("{pointer}/{index}"),
                    item,
                    catalogue,
                    problems,
                );
            }
        }
        _ => {}
    }
}

fn require_rule(
    file: &str,
    pointer: &str,
    rule: Option<&str>,
    catalogue: &Catalogue,
    problems: &mut Vec<Problem>,
) {
    match rule {
        Some(id) if catalogue.rule(id).is_some() => {}
        Some(id) => problems.push(Problem::new(
            file,
            pointer,
            format!("names rule {id}, which is not in cases/rules.toml"),
        )),
        None => problems.push(Problem::new(file, pointer, "must be a rule id (a string)")),
    }
}

fn check_examples(
    registry: &Registry,
    stem: &str,
    file: &str,
    doc: &Value,
    report: &mut CheckReport,
) {
    let Some(examples) = doc.get("examples").and_then(Value::as_array) else {
        report.problems.push(Problem::new(
            file,
            "/examples",
            "every schema carries positive examples",
        ));
        return;
    };
    for (index, example) in examples.iter().enumerate() {
        report.examples += 1;
        if let Err(issues) = registry.validate(stem, example) {
            let first = &issues[0];
            report.problems.push(Problem::new(
                file,
                &format!("/examples/{index}"),
                format!(
                    "is rejected but must validate: {} at {:?} (schema path {})",
                    first.message, first.instance_path, first.schema_path
                ),
            ));
        }
    }
}

fn check_negative_examples(
    registry: &Registry,
    stem: &str,
    file: &str,
    doc: &Value,
    catalogue: &Catalogue,
    report: &mut CheckReport,
) {
    let Some(negatives) = doc.get("x-negative-examples").and_then(Value::as_array) else {
        report.problems.push(Problem::new(
            file,
            "/x-negative-examples",
            "every schema carries negative examples",
        ));
        return;
    };
    for (index, negative) in negatives.iter().enumerate() {
        report.negative_examples += 1;
        let pointer = format!("/x-negative-examples/{index}");
        let (Some(rule), Some(instance)) = (
            negative.get("rule").and_then(Value::as_str),
            negative.get("instance"),
        ) else {
            report.problems.push(Problem::new(
                file,
                &pointer,
                "needs `rule` (a rule id), `why` and `instance`",
            ));
            continue;
        };
        if catalogue.rule(rule).is_none() {
            report.problems.push(Problem::new(
                file,
                &format!("{pointer}/rule"),
                format!("names rule {rule}, which is not in cases/rules.toml"),
            ));
        }
        match registry.validate(stem, instance) {
            Ok(()) => report.problems.push(Problem::new(
                file,
                &pointer,
                format!("validates but must be rejected ({rule})"),
            )),
            Err(issues)
                if !issues
                    .iter()
                    .any(|issue| issue.rule.as_deref() == Some(rule)) =>
            {
                let found: Vec<String> = issues
                    .iter()
                    .map(|i| {
                        format!(
                            "{} at {}",
                            i.rule.as_deref().unwrap_or("no rule"),
                            i.schema_path
                        )
                    })
                    .collect();
                report.problems.push(Problem::new(
                    file,
                    &pointer,
                    format!("is rejected, but not for {rule}: {}", found.join("; ")),
                ));
            }
            Err(_) => {}
        }
    }
}

fn check_operations(
    text: &str,
    stems: &HashSet<&str>,
    catalogue: &Catalogue,
    problems: &mut Vec<Problem>,
) {
    const FILE: &str = "schemas/operations.json";
    let operations = match parse_operations(text) {
        Ok(operations) => operations,
        Err(e) => {
            problems.push(Problem::new(
                FILE,
                "",
                format!("does not parse as the operations file: {e}"),
            ));
            return;
        }
    };
    let mut ids = HashSet::new();
    for (index, operation) in operations.iter().enumerate() {
        let pointer = format!("/operations/{index}");
        if !ids.insert(operation.id) {
            problems.push(Problem::new(
                FILE,
                &format!("{pointer}/id"),
                format!("id {} is used twice", operation.id),
            ));
        }
        check_operation(operation, &pointer, stems, catalogue, problems);
    }
    for missing in OperationId::ALL.iter().filter(|id| !ids.contains(id)) {
        problems.push(Problem::new(
            FILE,
            "/operations",
            format!("operation {missing} is not described"),
        ));
    }
}

fn check_operation(
    operation: &Operation,
    pointer: &str,
    stems: &HashSet<&str>,
    catalogue: &Catalogue,
    problems: &mut Vec<Problem>,
) {
    const FILE: &str = "schemas/operations.json";
    for stem in operation.schema_stems() {
        if !stems.contains(stem) {
            problems.push(Problem::new(
                FILE,
                pointer,
                format!(
                    "{}: names schema {stem:?}, which is not in schemas/",
                    operation.id
                ),
            ));
        }
    }
    if !operation.path.starts_with(operation.area.path_prefix()) {
        problems.push(Problem::new(
            FILE,
            &format!("{pointer}/path"),
            format!(
                "must start with {} (VER-PATH-V1)",
                operation.area.path_prefix()
            ),
        ));
    }
    for (index, param) in operation.parameters.iter().enumerate() {
        let at = format!("{pointer}/parameters/{index}");
        if let Err(e) = jsonschema::draft202012::meta::validate(&param.schema) {
            problems.push(Problem::new(
                FILE,
                &format!("{at}/schema"),
                format!("breaks the 2020-12 meta-schema: {}", e.masked()),
            ));
        }
        if param.name.is_none() && param.name_from_profile.is_none() {
            problems.push(Problem::new(
                FILE,
                &at,
                "a parameter without a name needs x-name-from-profile",
            ));
        }
        if let Some(rule) = &param.rule {
            require_rule(
                FILE,
                &format!("{at}/x-rule"),
                Some(rule),
                catalogue,
                problems,
            );
        }
    }
    require_rule(
        FILE,
        &format!("{pointer}/x-success-rule"),
        Some(&operation.success_rule),
        catalogue,
        problems,
    );
}

/// Every `schema:<stem>` a rule names in `checks` is a schema file (or `operations`).
fn check_catalogue_stems(
    catalogue: &Catalogue,
    stems: &HashSet<&str>,
    problems: &mut Vec<Problem>,
) {
    for rule in &catalogue.rules {
        for check in &rule.checks {
            if let Some(stem) = check.strip_prefix("schema:") {
                if stem != "operations" && !stems.contains(stem) {
                    problems.push(Problem::new(
                        "cases/rules.toml",
                        &format!("/{}", rule.id),
                        format!("checks names {check}, but schemas/{stem}.json does not exist"),
                    ));
                }
            }
        }
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Runs `schemas check` on a schema set and writes each problem, then the summary, to `out`.
/// Returns the exit code: 0 when all is well, 1 otherwise.
pub fn run_check<S: AsRef<str>, T: AsRef<str>>(
    schemas: &[(S, T)],
    operations: &str,
    catalogue: &Catalogue,
    out: &mut impl std::io::Write,
) -> std::io::Result<u8> {
    let report = check_sources(schemas, operations, catalogue);
    for problem in &report.problems {
        writeln!(out, "{problem}")?;
    }
    writeln!(out, "{}", report.summary())?;
    Ok(if report.problems.is_empty() {
        exit::SUCCESS
    } else {
        exit::FAILURES
    })
}
