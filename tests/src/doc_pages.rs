//! Reading the repository's pages for the documentation tests of both tiers: which files,
//! and in a Markdown file its fenced blocks, its prose (outside blocks and code spans), its
//! headings' anchors, and the shell blocks a person is told to run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use clap::CommandFactory;

pub use crate::root;

/// Directories never scanned: build output, installed packages, version control, the
/// plugin's transpiled components (build output too), and the demo's state directory: the
/// README's first command writes it at the root (git ignores it), a copy of the sample whose
/// own README links relative to `examples/`, where it was written.
fn skipped(dir: &Path) -> bool {
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "target"
        || name == "node_modules"
        || name.starts_with('.')
        || dir.ends_with("plugin/component")
        || dir == root().join("demo-state")
}

/// Every file under the repository root whose name ends with one of `suffixes`, sorted.
pub fn files_ending_with(suffixes: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, suffixes: &[&str], out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                if !skipped(&path) {
                    walk(&path, suffixes, out);
                }
            } else if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| suffixes.iter().any(|s| n.ends_with(s))) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), suffixes, &mut out);
    out
}

/// Every Markdown file of the repository.
pub fn markdown_files() -> Vec<PathBuf> {
    files_ending_with(&[".md"])
}

/// A path relative to the repository root, for messages.
pub fn shown(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", shown(path)))
}

/// A fenced code block: its info string (what follows the opening fence), its body, and
/// the line of its opening fence (1-based).
#[derive(Debug, Clone)]
pub struct Block {
    pub info: String,
    pub body: String,
    pub line: usize,
}

impl Block {
    /// The block's language: the info string's first word.
    pub fn language(&self) -> &str {
        self.info.split_whitespace().next().unwrap_or("")
    }

    /// The info string's words after the language (`needs-gateway`, `no-run`, `mcp-client=…`).
    pub fn marks(&self) -> Vec<&str> {
        self.info.split_whitespace().skip(1).collect()
    }
}

/// The fence that opens a block on this line (its character and length), if any.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let c = trimmed.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let run = trimmed.chars().take_while(|&x| x == c).count();
    (run >= 3).then(|| (c, run, trimmed[run..].trim()))
}

/// The fenced blocks of a Markdown text, and the text with every block's lines blanked
/// (so line numbers still hold).
pub fn split_blocks(text: &str) -> (Vec<Block>, String) {
    let mut blocks = Vec::new();
    let mut prose = String::with_capacity(text.len());
    let mut open: Option<(char, usize, Block)> = None;
    for (index, line) in text.lines().enumerate() {
        match &mut open {
            None => match fence(line) {
                Some((c, run, info)) => {
                    open = Some((c, run, Block { info: info.to_string(), body: String::new(), line: index + 1 }));
                    prose.push('\n');
                }
                None => {
                    prose.push_str(line);
                    prose.push('\n');
                }
            },
            Some((c, run, block)) => {
                let trimmed = line.trim();
                if trimmed.starts_with(&c.to_string().repeat(*run)) && trimmed.chars().all(|x| x == *c) {
                    blocks.push(open.take().expect("an open block").2);
                } else {
                    block.body.push_str(line);
                    block.body.push('\n');
                }
                prose.push('\n');
            }
        }
    }
    if let Some((_, _, block)) = open {
        blocks.push(block);
    }
    (blocks, prose)
}

/// A line of prose with its code spans removed (`` `x` ``), so what is quoted as code is
/// not read as a link.
pub fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text a heading shows: its Markdown without emphasis, code ticks and link targets.
fn heading_text(raw: &str) -> String {
    let link = regex_lite::Regex::new(r"!?\[([^\]]*)\]\([^)]*\)").expect("a valid regex");
    let text = link.replace_all(raw, "$1");
    text.chars().filter(|&c| c != '`' && c != '*').collect()
}

/// GitHub's anchor for a heading's text: lower case; every character that is not a letter,
/// a mark, a digit, `_`, `-` or a space dropped; spaces made hyphens.
pub fn slug(text: &str) -> String {
    heading_text(text)
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == '_' || c == '-' || c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor a Markdown file has: its headings' slugs (a repeated slug gets `-1`, `-2`,
/// … as on GitHub) and the `id`/`name` of its HTML anchors.
pub fn anchors(text: &str) -> Vec<String> {
    let (_, prose) = split_blocks(text);
    let html = regex_lite::Regex::new(r#"<a\s+(?:id|name)="([^"]+)""#).expect("a valid regex");
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for line in prose.lines() {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            let base = slug(trimmed[hashes..].trim().trim_end_matches('#'));
            let count = seen.entry(base.clone()).or_insert(0);
            out.push(if *count == 0 { base.clone() } else { format!("{base}-{count}") });
            *count += 1;
        }
        for capture in html.captures_iter(line) {
            out.push(capture[1].to_string());
        }
    }
    out
}

/// The pages a person follows, whose shell blocks are checked.
pub fn pages() -> Vec<PathBuf> {
    markdown_files()
        .into_iter()
        .filter(|path| {
            let name = shown(path);
            matches!(name.as_str(), "README.md" | "CONTRIBUTING.md" | "SECURITY.md" | "BENCHMARKS.md") || name.starts_with("docs/")
        })
        .collect()
}

#[derive(Debug, PartialEq)]
pub enum Kind {
    Run,
    NeedsGateway,
    NoRun,
    McpClient,
}

/// How a block is treated, or why its marking is refused. `None`: not a shell block.
pub fn kind(block: &Block) -> Option<Result<Kind, String>> {
    match block.language() {
        "sh" => {}
        "bash" | "shell" | "console" | "zsh" | "shell-session" => {
            return Some(Err(format!("a ```{} block: write ```sh (with a mark if it must not run)", block.language())))
        }
        _ => return None,
    }
    let marks = block.marks();
    Some(match marks.as_slice() {
        [] => Ok(Kind::Run),
        ["needs-gateway"] => Ok(Kind::NeedsGateway),
        ["no-run"] => Ok(Kind::NoRun),
        [mark] if mark.starts_with("mcp-client=") => Ok(Kind::McpClient),
        other => Err(format!("unknown marks {other:?}: use needs-gateway, no-run or mcp-client=NAME")),
    })
}

/// The simple commands of a shell script, split into words as `sh` would split them
/// (quotes, backslashes, comments, line continuations; `|`, `&&`, `||` and `;` end a
/// command). Variables stay as written.
pub fn simple_commands(script: &str) -> Result<Vec<Vec<String>>, String> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = script.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(next) => {
                    word.push(next);
                    in_word = true;
                }
                None => return Err("a trailing backslash".into()),
            },
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => word.push(x),
                        None => return Err("an unclosed single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => word.push(x),
                            Some('\n') => {}
                            Some(x) => {
                                word.push('\\');
                                word.push(x);
                            }
                            None => return Err("an unclosed double quote".into()),
                        },
                        Some(x) => word.push(x),
                        None => return Err("an unclosed double quote".into()),
                    }
                }
            }
            '#' if !in_word => {
                for x in chars.by_ref() {
                    if x == '\n' {
                        break;
                    }
                }
                end_word(&mut word, &mut in_word, &mut words);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '\n' | ';' | '|' | '&' => {
                end_word(&mut word, &mut in_word, &mut words);
                if matches!(c, '|' | '&') && chars.peek() == Some(&c) {
                    chars.next();
                }
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            // A redirection: its target is a file, not a word of the command.
            '>' | '<' => {
                end_word(&mut word, &mut in_word, &mut words);
                while chars.peek().is_some_and(|&x| x == '>' || x == '&' || x.is_ascii_digit()) {
                    chars.next();
                }
                while chars.peek().is_some_and(|&x| x == ' ' || x == '\t') {
                    chars.next();
                }
                while chars.peek().is_some_and(|&x| !x.is_whitespace() && !matches!(x, ';' | '|' | '&')) {
                    chars.next();
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    Ok(commands)
}

/// A `session-tools` command that the command line's definition does not accept, and why.
pub fn refused_by_the_definition(words: &[String]) -> Option<String> {
    match session_tools_cli::Cli::command().try_get_matches_from(words) {
        Ok(_) => None,
        Err(error) if matches!(error.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => None,
        Err(error) => Some(error.render().to_string()),
    }
}

/// The `session-tools` command in a simple command's words: the words themselves when they
/// start with it, or what follows a `--` that hands it to another program
/// (`claude mcp add NAME -- session-tools mcp …`).
pub fn session_tools_words(words: &[String]) -> Option<&[String]> {
    let at = words.iter().enumerate().position(|(i, w)| w == "session-tools" && (i == 0 || words[i - 1] == "--"))?;
    Some(&words[at..])
}

/// Whether a block runs `session-tools` at all.
pub fn runs_session_tools(block: &Block) -> bool {
    simple_commands(&block.body).unwrap_or_default().iter().any(|words| session_tools_words(words).is_some())
}

/// Parses every `session-tools` command of a block; the problems found.
pub fn parse_session_tools_commands(block: &Block) -> Vec<String> {
    match simple_commands(&block.body) {
        Err(problem) => vec![problem],
        Ok(commands) => commands
            .iter()
            .filter_map(|words| session_tools_words(words))
            .filter_map(|words| refused_by_the_definition(words).map(|why| format!("`{}`: {why}", words.join(" "))))
            .collect(),
    }
}

/// A temporary home with `~/.openclaw` the sample state, and `session-tools` on a `PATH`.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Sandbox {
        Sandbox::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("a temporary directory");
        crate::copy_dir(&crate::sample_state(), &dir.path().join("home/.openclaw"));
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let cli = crate::cli::binary(crate::cli::CLI_BINARY);
        assert!(cli.exists(), "the tests' build of the command line is missing: {}", cli.display());
        std::os::unix::fs::symlink(&cli, bin.join("session-tools")).unwrap();
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Sandbox { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Runs a block as one `sh -e` script; its output, or why it failed.
    pub fn run(&self, script: &str) -> Result<String, String> {
        self.run_with(script, &[])
    }

    /// Runs a block as one `sh -e` script with these environment variables too.
    pub fn run_with(&self, script: &str, env: &[(&str, &str)]) -> Result<String, String> {
        let path = format!("{}:{}", self.dir.path().join("bin").display(), std::env::var("PATH").unwrap_or_default());
        let home = self.home();
        let mut command = Command::new("sh");
        command
            .args(["-e", "-c", script])
            .current_dir(self.dir.path().join("work"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("LANG", "C.UTF-8")
            .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().map_err(|e| format!("starting sh: {e}"))?;
        let pid = child.id();
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || sender.send(child.wait_with_output()));
        // A bound on a hung command, not a synchronisation: a block that runs this long is
        // a block that should be marked no-run.
        let output = match receiver.recv_timeout(Duration::from_secs(120)) {
            Ok(output) => output.map_err(|e| format!("waiting for sh: {e}"))?,
            Err(_) => {
                let _ = Command::new("kill").args(["-KILL", "--", &format!("-{pid}")]).status();
                return Err("still running after 120 s: mark it no-run, or make it shorter".into());
            }
        };
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if !output.status.success() || stderr.contains("panicked") {
            return Err(format!("{}\nstdout:\n{stdout}\nstderr:\n{stderr}", output.status));
        }
        Ok(stdout)
    }
}
