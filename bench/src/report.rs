//! The figures of a run, their targets, and the table and markdown they are shown as.

use std::fmt::Write as _;

use super::stats::{fmt_bytes, fmt_ns, sig3, Stats};
use super::sysinfo::Machine;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unit {
    /// Nanoseconds.
    Ns,
    Bytes,
    Ratio,
    PerSec,
    Count,
}

impl Unit {
    pub fn fmt(self, v: f64) -> String {
        match self {
            Unit::Ns => fmt_ns(v),
            Unit::Bytes => fmt_bytes(v),
            Unit::Ratio => format!("{v:.2}×"),
            Unit::PerSec => format!("{} /s", thousands(v)),
            Unit::Count => thousands(v),
        }
    }
}

/// `12,345`.
pub fn thousands(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    AtMost(f64),
    AtLeast(f64),
}

impl Target {
    pub fn met(self, v: f64) -> bool {
        match self {
            Target::AtMost(t) => v <= t,
            Target::AtLeast(t) => v >= t,
        }
    }
    pub fn fmt(self, unit: Unit) -> String {
        match self {
            Target::AtMost(t) => format!("≤ {}", unit.fmt(t)),
            Target::AtLeast(t) => format!("≥ {}", unit.fmt(t)),
        }
    }
}

/// One figure of the run.
#[derive(Debug, Clone)]
pub struct Figure {
    pub section: &'static str,
    pub name: String,
    /// The median (or the value).
    pub value: f64,
    pub p90: Option<f64>,
    /// Samples behind it (0: a single measurement).
    pub n: usize,
    pub unit: Unit,
    pub target: Option<Target>,
    pub note: String,
}

impl Figure {
    pub fn time(section: &'static str, name: impl Into<String>, stats: Stats) -> Figure {
        Figure {
            section,
            name: name.into(),
            value: stats.median,
            p90: Some(stats.p90),
            n: stats.n,
            unit: Unit::Ns,
            target: None,
            note: String::new(),
        }
    }
    pub fn value(section: &'static str, name: impl Into<String>, value: f64, unit: Unit) -> Figure {
        Figure { section, name: name.into(), value, p90: None, n: 0, unit, target: None, note: String::new() }
    }
    pub fn target(mut self, target: Target) -> Figure {
        self.target = Some(target);
        self
    }
    pub fn note(mut self, note: impl Into<String>) -> Figure {
        self.note = note.into();
        self
    }
    pub fn met(&self) -> Option<bool> {
        self.target.map(|t| t.met(self.value))
    }
    fn verdict(&self) -> &'static str {
        match self.met() {
            Some(true) => "met",
            Some(false) => "MISSED",
            None => "",
        }
    }
}

/// Everything a run produced.
pub struct Report {
    pub machine: Machine,
    pub mode: String,
    pub figures: Vec<Figure>,
    /// Extra markdown sections (title, body).
    pub sections: Vec<(String, String)>,
    pub started: std::time::Instant,
    /// The load average when the run started.
    pub load_at_start: String,
}

impl Report {
    pub fn add(&mut self, figure: Figure) {
        print_figure(&figure);
        self.figures.push(figure);
    }

    pub fn section(&mut self, title: impl Into<String>, body: String) {
        self.sections.push((title.into(), body));
    }

    /// The figures as a plain-text table (for the terminal).
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = self.figures.iter().map(|f| f.name.chars().count()).max().unwrap_or(10).min(78);
        let _ = writeln!(out, "{:<width$}  {:>11}  {:>11}  {:>12}", "figure", "median", "p90", "target");
        let mut section = "";
        for f in &self.figures {
            if f.section != section {
                section = f.section;
                let _ = writeln!(out, "-- {section}");
            }
            let _ = writeln!(
                out,
                "{:<width$}  {:>11}  {:>11}  {:>12}  {}",
                f.name,
                f.unit.fmt(f.value),
                f.p90.map(|p| f.unit.fmt(p)).unwrap_or_default(),
                f.target.map(|t| t.fmt(f.unit)).unwrap_or_default(),
                f.verdict()
            );
        }
        out
    }

    /// The report as markdown, ready for `BENCHMARKS.md`.
    pub fn markdown(&self) -> String {
        let m = &self.machine;
        let mut out = String::new();
        let _ = writeln!(out, "## Run: `session-tools-bench{}`\n", self.mode);
        let _ = writeln!(out, "| | |\n|---|---|");
        let _ = writeln!(out, "| CPU | {} ({} cores available) |", m.cpu, m.cores);
        let _ = writeln!(out, "| memory | {} |", m.memory);
        let _ = writeln!(out, "| kernel | {} |", m.kernel);
        let _ = writeln!(out, "| compiler | {} |", m.rustc);
        let _ = writeln!(out, "| wasmtime | {} |", m.wasmtime);
        let _ = writeln!(
            out,
            "| session-tools | {} ({} build{}) |",
            m.crate_version,
            m.profile,
            m.commit.as_deref().map(|c| format!(", commit {c}")).unwrap_or_default()
        );
        let _ = writeln!(out, "| run time | {:.0} s |", self.started.elapsed().as_secs_f64());
        let _ = writeln!(
            out,
            "| load average (1, 5, 15 min) | {} at the start, {} at the end |",
            self.load_at_start,
            super::sysinfo::load_average()
        );
        let _ = writeln!(out);
        let met = self.figures.iter().filter(|f| f.met() == Some(true)).count();
        let targets = self.figures.iter().filter(|f| f.target.is_some()).count();
        let _ = writeln!(out, "### Figures against targets ({met} of {targets} targets met)\n");
        let _ = writeln!(out, "Medians; p90 where more than one sample was taken (n = samples).\n");
        let _ = writeln!(out, "| figure | median | p90 | n | target | | note |\n|---|---:|---:|---:|---:|---|---|");
        let mut section = "";
        for f in &self.figures {
            if f.section != section {
                section = f.section;
                let _ = writeln!(out, "| **{section}** | | | | | | |");
            }
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                f.name,
                f.unit.fmt(f.value),
                f.p90.filter(|_| f.n > 1).map(|p| f.unit.fmt(p)).unwrap_or_default(),
                if f.n > 0 { f.n.to_string() } else { String::new() },
                f.target.map(|t| t.fmt(f.unit)).unwrap_or_default(),
                match f.met() {
                    Some(true) => "✅ met",
                    Some(false) => "❌ missed",
                    None => "",
                },
                f.note
            );
        }
        for (title, body) in &self.sections {
            let _ = writeln!(out, "\n### {title}\n\n{body}");
        }
        out
    }
}

fn print_figure(f: &Figure) {
    let p90 = f.p90.filter(|_| f.n > 1).map(|p| format!(", p90 {}", f.unit.fmt(p))).unwrap_or_default();
    let target = f.target.map(|t| format!("  [target {} {}]", t.fmt(f.unit), f.verdict())).unwrap_or_default();
    let n = if f.n > 1 { format!(", n={}", f.n) } else { String::new() };
    session_tools_cli::note!("  {:<60} {}{p90}{n}{target}", f.name, f.unit.fmt(f.value));
}

/// A ratio shown with two decimals.
pub fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}", a / b)
    } else {
        "–".into()
    }
}

pub fn ms(ns: f64) -> String {
    sig3(ns / 1e6)
}
