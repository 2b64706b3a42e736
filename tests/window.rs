//! Smoke test of the desktop app layer: the bunnymark opens a real window under Xvfb, renders a fixed number of
//! frames, prints its stats and exits 0; the interactive example takes real clicks and keys (xdotool's XTEST input)
//! through winit, `App::pointer` and the dispatcher. `.ci/setup` installs Xvfb and xdotool.

mod common;

use common::example;
use std::process::{Command, Stdio};

struct Xvfb(std::process::Child, String);

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM, so the server removes its lock file and socket (a killed one leaves them behind); SIGKILL if
        // there is no `kill` to send it.
        let termed = Command::new("kill")
            .arg(self.0.id().to_string())
            .status()
            .is_ok_and(|s| s.success());
        if !termed {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// An Xvfb on a display it picks itself (`-displayfd`: the first free one, by its lock files), ready when this
/// returns; `None`, with a message, where Xvfb is not installed (the test is then skipped). Tests of this binary
/// run in parallel threads, and earlier runs may have left stale lock files.
fn xvfb() -> Option<Xvfb> {
    let spawned = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: Xvfb is not installed (run .ci/setup to install it)");
            return None;
        }
        Err(e) => panic!("Xvfb did not start: {e}"),
    };
    let mut line = String::new();
    // Xvfb writes the display number once it accepts connections, or closes the pipe when it fails.
    let mut out = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let _ = std::io::BufRead::read_line(&mut out, &mut line);
    let n: u32 = line.trim().parse().unwrap_or_else(|_| {
        let _ = child.kill();
        panic!("Xvfb did not start (printed {line:?})")
    });
    Some(Xvfb(child, format!(":{n}")))
}

/// Runs example `name` with `args` in a window on `x` (from the crate's root, where its assets are), checks it
/// exited 0 and returns what it printed: stdout, then stderr.
fn run_windowed(x: &Xvfb, name: &str, args: &[&str]) -> (String, String) {
    let bin = example(name);
    assert!(bin.exists(), "{} was not built", bin.display());
    let out = Command::new(&bin)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("DISPLAY", &x.1)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{name}: exit {:?}\nstdout: {stdout}\nstderr: {stderr}",
        out.status
    );
    (stdout, stderr)
}

#[test]
fn bunnymark_runs_in_a_window_under_xvfb_and_prints_its_stats() {
    let Some(x) = xvfb() else { return };
    let (stdout, stderr) = run_windowed(&x, "bunnymark", &["--frames", "20", "--sprites", "200"]);
    assert!(
        stdout.contains("\"mode\":\"window\""),
        "did not run windowed: {stdout} {stderr}"
    );
    assert!(stdout.contains("\"frames\":20"), "{stdout}");
    assert!(stdout.contains("\"sprites\":200"), "{stdout}");
}

#[test]
fn the_hello_example_builds_its_app_in_run_with_and_follows_a_resize() {
    let Some(x) = xvfb() else { return };
    let (stdout, stderr) = run_windowed(&x, "hello", &["--frames", "40", "--resize-at", "5"]);
    // App::resized heard the new size, and the bunny was centred in it.
    assert!(stdout.contains("last 500x400"), "{stdout}\n{stderr}");
    assert!(stdout.contains("Vec2(250.0, 200.0)"), "{stdout}");
    // The resize reached the surface (configured again at the new size), with no device lost.
    assert!(!stdout.contains("surface reconfigured 0 times"), "{stdout}");
    assert!(stdout.contains("device recovered 0 times"), "{stdout}");
}

#[test]
fn a_window_whose_gpu_device_is_lost_goes_on_on_a_new_one() {
    let Some(x) = xvfb() else { return };
    let args = ["--frames", "40", "--lose-device-at", "10"];
    let (stdout, stderr) = run_windowed(&x, "hello", &args);
    // Every frame asked for was presented (the lost one skipped and drawn again on the new device), the surface was
    // configured for the new device, and the window never closed.
    assert!(stdout.contains("frames 40 "), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("device recovered 1 times"),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn bunnymark_without_a_display_falls_back_to_headless_and_says_so() {
    let out = Command::new(example("bunnymark"))
        .args(["--frames", "5", "--warmup", "1", "--sprites", "50"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("running headless"), "{stderr}");
    assert!(
        stdout.contains("\"sprites\":50") && stdout.contains("cpu_ms_median"),
        "{stdout}"
    );
}

#[test]
fn the_other_examples_open_windows_too_and_fall_back_to_png() {
    let Some(x) = xvfb() else { return };
    let dir = std::env::temp_dir().join(format!("stage2d-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["shapes", "masks", "text", "render_texture"] {
        let bin = example(name);
        let windowed = Command::new(&bin)
            .args(["--frames", "5"])
            .env("DISPLAY", &x.1)
            .output()
            .unwrap();
        assert!(
            windowed.status.success(),
            "{name} in a window: {}",
            String::from_utf8_lossy(&windowed.stderr)
        );
        let png = dir.join(format!("{name}.png"));
        let headless = Command::new(&bin)
            .args(["--frames", "2", "--out", png.to_str().unwrap()])
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&headless.stderr);
        assert!(headless.status.success(), "{name} headless: {err}");
        assert!(err.contains("writing a PNG instead"), "{name}: {err}");
        let img = stage2d::image::open(&png).unwrap();
        assert_eq!((img.width(), img.height()), (800, 600));
    }
    // The embedding example drives its own window and device.
    let bin = example("embed");
    let windowed = Command::new(&bin)
        .args(["--frames", "5"])
        .env("DISPLAY", &x.1)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&windowed.stderr);
    assert!(windowed.status.success(), "embed in a window: {err}");
    assert!(!err.contains("drawing headless"), "embed fell back: {err}");
    let png = dir.join("embed.png");
    let headless = Command::new(&bin)
        .args(["--out", png.to_str().unwrap()])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(headless.status.success(), "embed headless");
    let img = stage2d::image::open(&png).unwrap();
    assert_eq!((img.width(), img.height()), (320, 240));
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `xdotool` with `args`; `false` if it is not installed.
fn xdotool(display: &str, args: &[&str]) -> bool {
    match Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .status()
    {
        Ok(s) => {
            assert!(s.success(), "xdotool {args:?} failed");
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => panic!("xdotool: {e}"),
    }
}

#[test]
fn the_interactive_example_takes_real_clicks_in_a_window() {
    let Some(x) = xvfb() else { return };
    if Command::new("xdotool").arg("version").output().is_err() {
        eprintln!("skipped: xdotool is not installed (run .ci/setup to install it)");
        return;
    }
    // Real X input through winit, App::pointer and the dispatcher: two clicks on button 2, then Escape.
    let mut child = Command::new(example("interactive"))
        .args(["--frames", "100000"])
        .env("DISPLAY", &x.1)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let found = Command::new("xdotool")
        .args([
            "search",
            "--sync",
            "--onlyvisible",
            "--name",
            "stage2d interactive",
        ])
        .env("DISPLAY", &x.1)
        .output()
        .unwrap();
    let window = String::from_utf8_lossy(&found.stdout)
        .lines()
        .next()
        .expect("the window appears")
        .to_string();
    // Button 2 spans x 40..220, y 110..160 of the window (at scale factor 1 under Xvfb).
    for _ in 0..2 {
        assert!(xdotool(
            &x.1,
            &["mousemove", "--window", &window, "100", "135"]
        ));
        std::thread::sleep(std::time::Duration::from_millis(300));
        // Without --window: XTEST input, which winit takes like a real device's (sent events are ignored).
        assert!(xdotool(&x.1, &["click", "1"]));
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    assert!(xdotool(&x.1, &["windowfocus", "--sync", &window]));
    assert!(xdotool(&x.1, &["key", "Escape"]));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the example did not close on Escape");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let stdout = common::succeeded(child.wait_with_output().unwrap());
    assert!(stdout.contains("\"mode\":\"window\""), "{stdout}");
    assert!(stdout.contains("\"clicks\":[0, 2, 0]"), "{stdout}");
    assert!(
        stdout.contains("\"cursor\":\"Pointer\""),
        "hovering a button: {stdout}"
    );
}
