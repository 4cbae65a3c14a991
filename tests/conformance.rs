//! Every conformance case kept in the project (`tests/conformance/cases`, a copy of the
//! public cases) passes through the real component, and the runner does fail a case
//! that is wrong.

#![forbid(unsafe_code)]

use session_tools_host::conformance::{load_dir, print_reports, run_all, run_case, CaseFile};
use session_tools_tests::{root, runtime};

#[test]
fn every_case_passes() {
    let files = load_dir(&root().join("tests/conformance/cases")).unwrap();
    assert!(files.len() >= 121, "expected the public cases, found {}", files.len());
    let reports = run_all(runtime(), &files);
    let mut out = Vec::new();
    let passed = print_reports(&reports, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    println!("{text}");
    assert!(passed, "conformance failures:\n{text}");
}

#[test]
fn every_case_of_our_own_passes() {
    // Cases the project keeps for behaviour the public cases do not look at (checked
    // against a real gateway where it is the judge; each case says where it came from).
    let files = load_dir(&root().join("tests/conformance/own-cases")).unwrap();
    assert!(!files.is_empty());
    let reports = run_all(runtime(), &files);
    let mut out = Vec::new();
    let passed = print_reports(&reports, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    println!("{text}");
    assert!(passed, "conformance failures:\n{text}");
}

#[test]
fn the_built_in_copy_is_the_project_copy() {
    let builtin = session_tools_host::conformance::builtin_cases();
    let on_disk = load_dir(&root().join("tests/conformance/cases")).unwrap();
    let names = |files: &[CaseFile]| files.iter().map(|f| (f.file.clone(), f.text.clone())).collect::<Vec<_>>();
    assert_eq!(names(&builtin), names(&on_disk));
}

fn mutated(file: &str, from: &str, to: &str) -> CaseFile {
    let path = root().join("tests/conformance/cases").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} does not contain {from}");
    CaseFile { file: format!("mutated-{file}"), text: text.replacen(from, to, 1) }
}

#[test]
fn a_wrong_expectation_fails_with_a_readable_diff() {
    let report = run_case(runtime(), &mutated("002-sessions_list-kinds-and-messages.json", "\"kind\": \"cron\"", "\"kind\": \"other\""));
    assert!(!report.passed());
    assert!(report.failures[0].contains("/sessions/2/kind"), "{:?}", report.failures);

    let report = run_case(runtime(), &mutated("031-sessions_send-wait-reply.json", "\"timeoutMs\": 1000", "\"timeoutMs\": 999"));
    assert!(!report.passed());
    assert!(report.failures[0].contains("recorded calls"), "{:?}", report.failures);

    let report = run_case(runtime(), &mutated("095-send_policy-default-allow.json", "\"result\": \"allow\"", "\"result\": \"deny\""));
    assert!(!report.passed());
}

#[test]
fn an_unreadable_case_fails() {
    let report = run_case(runtime(), &CaseFile { file: "broken.json".into(), text: "{ nope".into() });
    assert!(!report.passed());
}
