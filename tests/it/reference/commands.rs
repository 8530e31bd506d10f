//! The commands around the reference: `covenant list faults` and `covenant serve`.

use covenant::profile::Profile;
use covenant::reference::Fault;

#[test]
fn list_faults_prints_every_fault_and_the_count() {
    let out = crate::support::covenant()
        .args(["list", "faults"])
        .output()
        .expect("the binary runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for fault in Fault::all() {
        assert!(
            text.contains(fault.name()) && text.contains(fault.rule()),
            "{fault}"
        );
    }
    assert!(text
        .trim_end()
        .ends_with(&format!("{} faults", Fault::all().len())));
}

#[test]
fn serve_refuses_an_unknown_fault_with_a_usage_error() {
    let out = crate::support::covenant()
        .args(["serve", "--port", "0", "--fault", "no-such-fault"])
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-fault") && err.contains("covenant list faults"),
        "{err}"
    );
}

#[test]
fn serve_writes_a_loadable_profile_and_stops_on_sigterm() {
    let dir = std::env::temp_dir().join(format!("covenant-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profile.toml");
    let mut child = crate::support::covenant()
        .args([
            "serve",
            "--port",
            "0",
            "--fault",
            "rcv-create-200",
            "--profile-out",
        ])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The server says where it listens and that the profile is written, then serves.
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let mut said = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let done = line.starts_with("profile written");
        said.push(line);
        if done {
            break;
        }
    }
    let said = said.join("\n");
    assert!(
        said.contains("covenant reference listening on http://127.0.0.1:"),
        "{said}"
    );
    assert!(said.contains("rcv-create-200"), "{said}");
    let profile = Profile::load(&path).expect("the written profile loads");
    assert!(profile.base_url.unwrap().starts_with("http://127.0.0.1:"));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}
