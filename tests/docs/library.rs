//! The example of `docs/library.md` is this file's `list_sessions`, word for word, and it
//! runs: the page shows code that compiles against today's library and answers.

use session_tools_tests::doc_pages::{read, root, split_blocks};

// The page's example: from the line after `// page example begins` to the line before
// `// page example ends`, compared with the page's ```rust block.
// page example begins
use std::path::Path;

use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::{Caller, ServiceBuilder};

/// The sessions an agent's main session may see, as `sessions_list` answers them.
fn list_sessions(state_dir: &Path) -> anyhow::Result<String> {
    let gateway = EmbeddedGateway::builder(state_dir).open()?;
    let service = ServiceBuilder::over_embedded(&gateway).build()?;
    let caller = Caller { agent_session_key: Some("agent:main:main".into()), ..Caller::default() };
    let answer = service.call(&caller, "sessions_list", r#"{"limit": 5}"#)?;
    Ok(answer)
}
// page example ends

fn example_in_this_file() -> String {
    let source = include_str!("library.rs");
    let start = source.find("// page example begins\n").expect("the start marker") + "// page example begins\n".len();
    let end = start + source[start..].find("// page example ends\n").expect("the end marker");
    source[start..end].to_string()
}

#[test]
fn the_library_page_shows_this_example_and_it_runs() {
    let (blocks, _) = split_blocks(&read(&root().join("docs/library.md")));
    let shown: Vec<_> = blocks.iter().filter(|b| b.language() == "rust").collect();
    assert!(
        shown.iter().any(|b| b.body == example_in_this_file()),
        "docs/library.md shows the example of tests/docs/library.rs word for word (copy it from there)"
    );
    let state = tempfile::tempdir().unwrap();
    session_tools_tests::copy_dir(&session_tools_tests::sample_state(), state.path());
    let answer: serde_json::Value = serde_json::from_str(&list_sessions(state.path()).unwrap()).unwrap();
    let rows = answer["sessions"].as_array().expect("a list of sessions");
    assert!(!rows.is_empty() && rows.len() <= 5, "{answer}");
}
