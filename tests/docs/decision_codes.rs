//! Decision codes. The project's decisions are defined in `docs/decisions.md`, one heading
//! each (`### N15: …`). A citation is the letter N, G or E followed by one or two digits, as
//! a whole word (`N15`, `E3`; not `E2E`, not `0xE3`), anywhere in a file the test reads:
//! `.rs`, `.mjs`, `.js`, `.wit`, `.md`, `.toml`, `.sh`, outside `target/` and
//! `node_modules/`. It reads code and comments alike: nothing else in the repository has
//! that shape today, and a string that needs it should be spelled otherwise. Every citation
//! must be defined; the user pages (README, SECURITY, CHANGELOG, BENCHMARKS and `docs/`
//! except the decisions page) cite none: they say the rule in words.

use std::collections::BTreeSet;

use session_tools_tests::doc_pages::{files_ending_with, read, root, shown};

const SCANNED: &[&str] = &[".rs", ".mjs", ".js", ".wit", ".md", ".toml", ".sh"];

fn citation() -> regex_lite::Regex {
    regex_lite::Regex::new(r"\b[NGE][0-9]{1,2}\b").expect("a valid regex")
}

/// The codes `docs/decisions.md` defines: its `### CODE: title` headings.
fn defined() -> BTreeSet<String> {
    let heading = regex_lite::Regex::new(r"(?m)^### ([NGE][0-9]{1,2}): \S").expect("a valid regex");
    heading.captures_iter(&read(&root().join("docs/decisions.md"))).map(|c| c[1].to_string()).collect()
}

fn is_user_page(shown: &str) -> bool {
    matches!(shown, "README.md" | "SECURITY.md" | "CHANGELOG.md" | "BENCHMARKS.md")
        || (shown.starts_with("docs/") && shown.ends_with(".md") && shown != "docs/decisions.md")
}

#[test]
fn every_cited_decision_code_is_defined_and_user_pages_cite_none() {
    let defined = defined();
    for family in ["N1", "N18", "G1", "G4", "E1", "E6"] {
        assert!(defined.contains(family), "docs/decisions.md does not define {family}; it defines {defined:?}");
    }
    let citation = citation();
    let mut undefined = Vec::new();
    let mut on_user_pages = Vec::new();
    let mut cited = BTreeSet::new();
    for file in files_ending_with(SCANNED) {
        let name = shown(&file);
        for (index, line) in read(&file).lines().enumerate() {
            for found in citation.find_iter(line) {
                let code = found.as_str();
                cited.insert(code.to_string());
                if !defined.contains(code) {
                    undefined.push(format!("{name}:{}: {code}", index + 1));
                }
                if is_user_page(&name) {
                    on_user_pages.push(format!("{name}:{}: {code}", index + 1));
                }
            }
        }
    }
    assert!(cited.contains("N15"), "no citation of N15 found: the scan is broken");
    assert!(
        undefined.is_empty(),
        "decision codes cited but not defined in docs/decisions.md (define them there, or cite the right one):\n{}",
        undefined.join("\n")
    );
    assert!(
        on_user_pages.is_empty(),
        "user pages say the rule in words, not its code (the codes belong in docs/decisions.md):\n{}",
        on_user_pages.join("\n")
    );
}

#[test]
fn what_counts_as_a_citation() {
    let citation = citation();
    let found: Vec<_> = citation.find_iter("N15, (E3) E2E 0xE3 N5x G4. AN1 E6").map(|m| m.as_str()).collect();
    assert_eq!(found, ["N15", "E3", "G4", "E6"]);
}
