//! A warning before the pods start: a command hakaru runs with `sh` before a round,
//! a step or a suite's phase (`--before-round`, `--before-step`, a phase's `before`)
//! cannot run on an image without a shell, such as deploy/kubernetes/Dockerfile's
//! (FROM scratch, hakaru alone). Every pod would stop with exit 1 before its first
//! step; said here, on stderr and in the YAML, not in N pod logs.

/// Whether `image` looks like one without `sh`: hakaru's own (the Dockerfile's
/// scratch image, `hakaru:TAG`), or one named scratch or distroless.
pub fn scratch_like(image: &str) -> bool {
    let name = image.split(['@', ':']).next().unwrap_or(image);
    let last = name.rsplit('/').next().unwrap_or(name);
    last == "hakaru" || name.contains("scratch") || name.contains("distroless")
}

/// The commands the pods would run with `sh` before their load: `(where, command)`.
fn commands(args: &[String], scenario: Option<(&str, &str)>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        for flag in ["--before-round", "--before-step"] {
            if a == flag {
                if let Some(c) = it.clone().next() {
                    out.push((flag.to_owned(), c.clone()));
                }
            } else if let Some(c) = a.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                out.push((flag.to_owned(), c.to_owned()));
            }
        }
    }
    if let Some((path, text)) = scenario {
        for (name, c) in super::scenario::phase_befores(text) {
            out.push((format!("{path}: phase \"{name}\"'s `before`"), c));
        }
    }
    out
}

/// One warning per command the pods would run with `sh` when `image` has none.
pub fn warnings(image: &str, args: &[String], scenario: Option<(&str, &str)>) -> Vec<String> {
    if !scratch_like(image) {
        return Vec::new();
    }
    let redactor = super::redactor_of(args);
    commands(args, scenario)
        .into_iter()
        .map(|(at, command)| {
            let needs: String = super::scenario::programs(&command)
                .iter()
                .map(|p| format!(", {p}"))
                .collect();
            format!(
                "{at} `{}` runs with sh in every pod, and --image {image} looks like \
                 deploy/kubernetes/Dockerfile's (FROM scratch, hakaru alone) with no sh: each \
                 pod would stop with exit 1 before its first step; give --image one that has \
                 sh{needs}",
                redactor.shell_command(&command).replace('\n', " ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn scratch_images_are_told_from_images_with_a_shell() {
        for image in [
            "hakaru:0.1.0",
            "registry.local/team/hakaru@sha256:ab",
            "gcr.io/distroless/static",
            "scratch",
        ] {
            assert!(scratch_like(image), "{image}");
        }
        for image in ["debian:bookworm", "hakaru-sh:1", "busybox"] {
            assert!(!scratch_like(image), "{image}");
        }
    }

    #[test]
    fn before_flags_and_phase_commands_are_found() {
        let a = args(&[
            "run",
            "--before-step",
            "redis-cli flushall",
            "--before-round=sync; echo 3",
            "URL",
        ]);
        let w = warnings("hakaru:1", &a, None);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("--before-step `redis-cli flushall` runs with sh"),
            "{}",
            w[0]
        );
        assert!(w[0].ends_with("one that has sh, redis-cli"), "{}", w[0]);
        assert!(w[1].ends_with("sh, sync, echo"), "{}", w[1]);
        assert!(warnings("debian:12", &a, None).is_empty());
        let scenario =
            "[[phase]]\nname = \"cold\"\nbefore = \"flush\"\nduration = 1\nclients = 1\n";
        let w = warnings(
            "hakaru:1",
            &args(&["suite", "s.toml"]),
            Some(("s.toml", scenario)),
        );
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("s.toml: phase \"cold\"'s `before` `flush` runs"),
            "{}",
            w[0]
        );
    }
}
