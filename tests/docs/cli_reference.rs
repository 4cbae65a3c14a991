//! `docs/cli.md`, the command line's reference, is generated from its definition
//! (`session_tools_cli::Cli`, clap's `CommandFactory`): every command's full `--help`. The
//! test compares the page with what the definition generates today; with `UPDATE_DOCS=1` it
//! writes the page instead.

use clap::CommandFactory;

use session_tools_tests::doc_pages::root;

const REGENERATE: &str = "UPDATE_DOCS=1 cargo test --release -p session-tools-tests --test integration -- docs::cli_reference";

/// The full help of a command, as a person sees it at a terminal 100 columns wide, with no
/// environment variable's value shown (the page must not depend on who generated it).
fn long_help(command: &mut clap::Command) -> String {
    let help = command.render_long_help().to_string();
    help.lines().map(str::trim_end).collect::<Vec<_>>().join("\n").trim().to_string()
}

/// Every command below `command`, depth first, with its full name (`session-tools call`).
fn commands(command: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
    let name = if prefix.is_empty() { command.get_name().to_string() } else { format!("{prefix} {}", command.get_name()) };
    out.push((name.clone(), command.clone()));
    for sub in command.get_subcommands() {
        if sub.get_name() != "help" {
            commands(sub, &name, out);
        }
    }
}

fn hide_env_values(command: clap::Command) -> clap::Command {
    let names: Vec<String> = command.get_subcommands().map(|s| s.get_name().to_string()).collect();
    let mut command = command.mut_args(|arg| arg.hide_env_values(true)).term_width(100);
    for name in names {
        command = command.mut_subcommand(name, hide_env_values);
    }
    command
}

/// The page, generated.
fn generate() -> String {
    let mut top = hide_env_values(session_tools_cli::Cli::command());
    top.build();
    let mut all = Vec::new();
    commands(&top, "", &mut all);
    let mut page = String::from(
        "# Command-line reference\n\n\
         <!-- Generated from the command line's definition; do not edit. Regenerate with:\n",
    );
    page.push_str(REGENERATE);
    page.push_str(
        "\n-->\n\n\
         Every command of `session-tools` with its full `--help`. \
         [The command line](../README.md#from-the-command-line) shows the common uses.\n\n",
    );
    for (name, command) in &all {
        let hidden = if command.is_hide_set() { " (developer command)" } else { "" };
        page.push_str(&format!("- [`{name}`](#{}){hidden}\n", name.replace(' ', "-")));
    }
    for (name, mut command) in all {
        page.push_str(&format!("\n## {name}\n\n```text\n{}\n```\n", long_help(&mut command)));
    }
    page
}

#[test]
fn the_command_line_reference_is_current() {
    let path = root().join("docs/cli.md");
    let generated = generate();
    if std::env::var_os("UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("writing docs/cli.md");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != generated {
        let line = current
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| current.lines().count().min(generated.lines().count()) + 1, |i| i + 1);
        panic!(
            "docs/cli.md is not what the command line's definition generates (first difference at line {line}: \
             {:?} against {:?}). Regenerate it with:\n  {REGENERATE}",
            current.lines().nth(line - 1).unwrap_or("<end>"),
            generated.lines().nth(line - 1).unwrap_or("<end>"),
        );
    }
}
