//! The rules of `session_tools_tests::doc_pages`' Markdown reading, on small texts.

use session_tools_tests::doc_pages::{anchors, slug, split_blocks, without_code_spans};

#[test]
fn slugs_follow_githubs_rules() {
    assert_eq!(slug("Today's state directory (OpenClaw 2026.9)"), "todays-state-directory-openclaw-20269");
    assert_eq!(slug("For any MCP client: `session-tools mcp`"), "for-any-mcp-client-session-tools-mcp");
    assert_eq!(slug("N15: Visibility is enforced twice"), "n15-visibility-is-enforced-twice");
    assert_eq!(slug("Set-up — two commands"), "set-up--two-commands");
    assert_eq!(slug("A [linked](x.md) heading"), "a-linked-heading");
    assert_eq!(anchors("# A\n## A\n```\n# not a heading\n```\n### A\n"), ["a", "a-1", "a-2"]);
}

#[test]
fn blocks_are_split_from_prose() {
    let (blocks, prose) = split_blocks("text\n```sh no-run\nrm -rf /\n```\nmore\n````md\n```\n````\n");
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].language(), "sh");
    assert_eq!(blocks[0].marks(), ["no-run"]);
    assert_eq!(blocks[0].body, "rm -rf /\n");
    assert_eq!(blocks[1].body, "```\n");
    assert_eq!(prose.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>(), ["text", "more"]);
    assert_eq!(without_code_spans("a `[x](y)` b ``c`d`` e"), "a  b  e");
}
