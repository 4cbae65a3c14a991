//! No page or code comment refers to an issue by its number: a clone of the repository
//! cannot look it up, so the reason is written where it is needed. Read: every `.md`, `.rs`,
//! `.mjs`, `.js`, `.wit`, `.toml`, `.sh` and `.gitignore` file outside `target/` and
//! `node_modules/` (JSON files are data: a sample transcript may well mention an issue).
//! The same for a pointer at the specification tree beside the repository (a `shared`
//! directory one level up, or its `spec` folder), which a clone does not have.

use session_tools_tests::doc_pages::{files_ending_with, read, shown};

#[test]
fn no_issue_numbers_and_no_pointers_outside_the_repository() {
    let issue = regex_lite::Regex::new(r"(?i)\bissues?\s+#?[0-9]+").expect("a valid regex");
    let outside = regex_lite::Regex::new(r"\.\./shared\b|\bshared/spec\b").expect("a valid regex");
    let mut found = Vec::new();
    for file in files_ending_with(&[".md", ".rs", ".mjs", ".js", ".wit", ".toml", ".sh", ".gitignore"]) {
        let name = shown(&file);
        for (index, line) in read(&file).lines().enumerate() {
            for m in issue.find_iter(line).chain(outside.find_iter(line)) {
                found.push(format!("{name}:{}: `{}`", index + 1, m.as_str()));
            }
        }
    }
    assert!(found.is_empty(), "write the reason instead of an issue number, and point inside the repository:\n{}", found.join("\n"));
}
