//! Helpers shared by the examples: flags, timing summaries, display detection.
#![allow(dead_code)]

use std::time::Instant;

/// Command-line flags: `--name value` pairs and bare `--switch`es.
pub struct Flags(Vec<String>);

impl Flags {
    pub fn from_env() -> Flags {
        Flags(std::env::args().skip(1).collect())
    }
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }
    pub fn value(&self, name: &str) -> Option<&str> {
        let i = self.0.iter().position(|a| a == name)?;
        self.0.get(i + 1).map(|s| s.as_str())
    }
    pub fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.value(name) {
            Some(v) => v.parse().unwrap_or_else(|_| {
                eprintln!("{name} needs a number, got {v}");
                std::process::exit(2)
            }),
            None => default,
        }
    }
}

/// Whether a window could open: an X11 or Wayland display is named.
pub fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Collects per-frame durations in milliseconds.
#[derive(Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn push_since(&mut self, t0: Instant) {
        self.0.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    pub fn percentile(&self, p: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        v[((v.len() - 1) as f64 * p).round() as usize]
    }
    pub fn median(&self) -> f64 {
        self.percentile(0.5)
    }
}

/// Starts env_logger at `warn` unless RUST_LOG says otherwise.
pub fn init_logging() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
}
