//! Sampling and summary statistics: warm up, take many samples within a time budget,
//! report medians and p90s (nanoseconds).

use std::time::{Duration, Instant};

/// A summary of samples, in nanoseconds (per iteration).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub n: usize,
    pub median: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(samples: &[f64]) -> Stats {
        if samples.is_empty() {
            return Stats::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        Stats {
            n: sorted.len(),
            median: quantile(&sorted, 0.5),
            p90: quantile(&sorted, 0.9),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
        }
    }
}

/// Linear interpolation between closest ranks.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// How many samples to take.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub warmup: usize,
    pub min_samples: usize,
    pub max_samples: usize,
    /// Stop taking samples after this long (once `min_samples` are in).
    pub budget: Duration,
}

impl Plan {
    pub fn new(warmup: usize, min_samples: usize, max_samples: usize, budget: Duration) -> Plan {
        Plan { warmup, min_samples, max_samples, budget }
    }
}

/// Samples `f`, which times itself and answers nanoseconds per iteration (so set-up and
/// tear-down around the timed part stay out of the figure).
pub fn sample<E>(plan: Plan, mut f: impl FnMut() -> Result<f64, E>) -> Result<Stats, E> {
    for _ in 0..plan.warmup {
        f()?;
    }
    let started = Instant::now();
    let mut samples = Vec::with_capacity(plan.max_samples.min(100_000));
    while samples.len() < plan.max_samples && (samples.len() < plan.min_samples || started.elapsed() < plan.budget) {
        samples.push(f()?);
    }
    Ok(Stats::of(&samples))
}

/// Samples two things alternately (so the drift of a noisy machine hits both alike).
pub fn sample_pair<E>(
    plan: Plan,
    mut a: impl FnMut() -> Result<f64, E>,
    mut b: impl FnMut() -> Result<f64, E>,
) -> Result<(Stats, Stats), E> {
    for _ in 0..plan.warmup {
        a()?;
        b()?;
    }
    let started = Instant::now();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    while xs.len() < plan.max_samples && (xs.len() < plan.min_samples || started.elapsed() < plan.budget) {
        if xs.len() % 2 == 0 {
            xs.push(a()?);
            ys.push(b()?);
        } else {
            ys.push(b()?);
            xs.push(a()?);
        }
    }
    Ok((Stats::of(&xs), Stats::of(&ys)))
}

/// Nanoseconds since `t`.
pub fn ns_since(t: Instant) -> f64 {
    t.elapsed().as_nanos() as f64
}

/// A duration in nanoseconds, shown with a unit that fits.
pub fn fmt_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "–".into();
    }
    let (value, unit) = if ns < 1_000.0 {
        (ns, "ns")
    } else if ns < 1_000_000.0 {
        (ns / 1e3, "µs")
    } else if ns < 1_000_000_000.0 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", sig3(value))
}

/// Bytes, shown with a binary unit.
pub fn fmt_bytes(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{} B", sig3(bytes))
    } else if bytes < 1024.0 * 1024.0 {
        format!("{} KiB", sig3(bytes / 1024.0))
    } else if bytes < 1024.0 * 1024.0 * 1024.0 {
        format!("{} MiB", sig3(bytes / 1024.0 / 1024.0))
    } else {
        format!("{} GiB", sig3(bytes / 1024.0 / 1024.0 / 1024.0))
    }
}

/// Three significant digits (no exponent), integers as they are.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_p90() {
        let s = Stats::of(&[5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((s.n, s.median, s.min, s.max), (5, 3.0, 1.0, 5.0));
        assert!((s.p90 - 4.6).abs() < 1e-9);
        assert_eq!(Stats::of(&[1.0, 2.0]).median, 1.5);
    }

    #[test]
    fn units() {
        assert_eq!(fmt_ns(250.0), "250 ns");
        assert_eq!(fmt_ns(12_345.0), "12.3 µs");
        assert_eq!(fmt_ns(1_500_000.0), "1.50 ms");
        assert_eq!(fmt_bytes(65536.0), "64.0 KiB");
    }
}
