//! Every relative link of every Markdown file resolves: the file or directory exists, and an
//! anchor (`#…`) is one of the target file's headings (GitHub's slugs) or HTML anchors.
//! Links with a scheme (`https:`, `mailto:`) are not followed: the test must not need the
//! network.

use std::path::Path;

use session_tools_tests::doc_pages::{anchors, markdown_files, read, shown, split_blocks, without_code_spans};

/// The link targets of a Markdown text's prose, with their lines: inline links and images
/// (`[text](target)`, `![alt](target "title")`) and reference definitions (`[x]: target`).
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let inline = regex_lite::Regex::new(r"\]\(\s*<?([^)\s>]*)>?(?:\s+[^)]*)?\)").expect("a valid regex");
    let reference = regex_lite::Regex::new(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$").expect("a valid regex");
    let (_, prose) = split_blocks(text);
    let mut out = Vec::new();
    for (index, line) in prose.lines().enumerate() {
        let line = without_code_spans(line);
        for capture in inline.captures_iter(&line) {
            out.push((index + 1, capture[1].to_string()));
        }
        if let Some(capture) = reference.captures(&line) {
            out.push((index + 1, capture[1].to_string()));
        }
    }
    out
}

fn has_scheme(target: &str) -> bool {
    let scheme: String = target.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')).collect();
    !scheme.is_empty() && target[scheme.len()..].starts_with(':')
}

/// What is wrong with one link of `file`, if anything.
fn check(file: &Path, target: &str) -> Option<String> {
    if target.is_empty() {
        return Some("an empty link".into());
    }
    if has_scheme(target) {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    if path.starts_with('/') {
        return Some(format!("`{target}` is absolute: write it relative to {}", shown(file)));
    }
    let resolved = if path.is_empty() { file.to_path_buf() } else { file.parent().expect("a file's directory").join(path) };
    if !resolved.exists() {
        return Some(format!("`{target}`: {} does not exist", shown(&resolved)));
    }
    let anchor = anchor?;
    if resolved.is_dir() || resolved.extension().and_then(|e| e.to_str()) != Some("md") {
        return Some(format!("`{target}`: an anchor into {}, which is not a Markdown file", shown(&resolved)));
    }
    let known = anchors(&read(&resolved));
    (!known.iter().any(|a| a == anchor))
        .then(|| format!("`{target}`: {} has no heading with the anchor `#{anchor}` (its anchors: {})", shown(&resolved), known.join(", ")))
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 10, "the repository's Markdown files were not found: {files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        for (line, target) in link_targets(&read(file)) {
            checked += 1;
            if let Some(problem) = check(file, &target) {
                broken.push(format!("{}:{line}: {problem}", shown(file)));
            }
        }
    }
    assert!(checked > 50, "only {checked} links found: the link reader is broken");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_reader_finds_links_and_skips_code() {
    let text = "See [a](a.md#x) and ![i](img.png \"t\").\n`[not](code.md)`\n```\n[no](block.md)\n```\n[ref]: docs/b.md\n";
    let found: Vec<_> = link_targets(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["a.md#x", "img.png", "docs/b.md"]);
    assert!(has_scheme("https://example.com") && has_scheme("mailto:x@y") && !has_scheme("docs/a.md#b:c"));
}
