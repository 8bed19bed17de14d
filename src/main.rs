//! The `lanthorn` command line: it parses the arguments and hands the command to
//! `app::command`, where each command's arguments and checks live.

use clap::Parser;

use lanthorn::app;

#[derive(Parser)]
#[command(
    name = "lanthorn",
    version,
    about = "Portal-culling renderer for brush-built worlds, on wgpu"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<app::command::Command>,
}

/// winit and the Vulkan/EGL window-system probes complain without a runtime directory
/// (headless machines, CI): give them a private one.
fn ensure_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("lanthorn-xdg-runtime");
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

fn main() {
    app::started();
    ensure_runtime_dir();
    // The libraries' warnings read like the program's own: `warning: …` on stderr.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format(|out, record| {
            use std::io::Write;
            let level = record.level().as_str().to_ascii_lowercase();
            let level = if level == "warn" {
                "warning".into()
            } else {
                level
            };
            writeln!(out, "{level}: {}", record.args())
        })
        .init();
    if let Err(e) = app::command::run(Cli::parse().command) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
