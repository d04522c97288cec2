//! The dependency rules of ARCHITECTURE.md, checked on the code: every `crate::…`
//! path in `src/` (outside test modules and comments) must name a module its own
//! top-level module may use, as the "Dependency rules" table says. A new arrow back up
//! the flow fails here with the file, the line and the rule, so the map stays true.
//!
//! A rule names top-level modules (`result`) or, where only part of a module is
//! shared, a submodule (`spec::threshold`); `*` allows everything (the command line,
//! the fuzz entry points).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// module → what it may use, from ARCHITECTURE.md's "Dependency rules" table.
fn rules() -> BTreeMap<String, BTreeSet<String>> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md");
    let section = text
        .split("\n## Dependency rules")
        .nth(1)
        .expect("ARCHITECTURE.md has a \"## Dependency rules\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    // The names in a cell are its code spans (`result`, `*`); the prose between
    // them (why an arrow is right) names none.
    let names = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    };
    let mut rules = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        if cells.len() < 2 || cells[0].contains("---") || cells[0].trim() == "module" {
            continue;
        }
        let may: BTreeSet<String> = names(cells[1]).into_iter().collect();
        for module in names(cells[0]) {
            rules.insert(module, may.clone());
        }
    }
    assert!(!rules.is_empty(), "the Dependency rules table is empty");
    rules
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The paths after `crate::` on a line: `crate::a::b` and each of `crate::{a::b, c}`.
fn crate_paths(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `hakaru_crate::`, not ours
        }
        let seg = |s: &str| -> Vec<String> {
            s.split("::")
                .map(|p| {
                    p.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|p| !p.is_empty())
                .collect()
        };
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            out.extend(group[..end].split(',').map(|p| seg(p.trim())));
        } else {
            out.push(seg(rest));
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// True when `path` (after `crate::`) is allowed by `may`.
fn allowed(may: &BTreeSet<String>, path: &[String]) -> bool {
    may.contains("*")
        || may.contains(&path[0])
        || (path.len() > 1 && may.contains(&format!("{}::{}", path[0], path[1])))
}

#[test]
fn every_crate_path_follows_the_dependency_rules() {
    let rules = rules();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut broken = Vec::new();
    let mut unknown = BTreeSet::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(may) = rules.get(&module) else {
            unknown.insert(module);
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim_start();
            // Test modules sit at the end of their files and may use anything.
            if t.starts_with("#[cfg(test)]") {
                break;
            }
            if t.starts_with("//") {
                continue;
            }
            for path in crate_paths(line) {
                if path[0] != module && !allowed(may, &path) {
                    broken.push(format!(
                        "src/{}:{}: `crate::{}`: {module} may use only {}",
                        rel.display(),
                        n + 1,
                        path.join("::"),
                        if may.is_empty() {
                            "nothing else in the crate".to_string()
                        } else {
                            may.iter().cloned().collect::<Vec<_>>().join(", ")
                        }
                    ));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "modules without a row in ARCHITECTURE.md's Dependency rules: {unknown:?}"
    );
    assert!(
        broken.is_empty(),
        "arrows the Dependency rules in ARCHITECTURE.md do not allow (fix the import, or \
         write the rule where the arrow is right):\n{}",
        broken.join("\n")
    );
}

#[test]
fn paths_are_read_as_written() {
    assert_eq!(
        crate_paths("use crate::result::{RunResult, store::Outputs};"),
        vec![vec!["result".to_string()]]
    );
    assert_eq!(
        crate_paths("let x = crate::spec::threshold::parse(a) + crate::{a::b, c}"),
        vec![
            vec!["spec".to_string(), "threshold".into(), "parse".into()],
            vec!["a".to_string(), "b".into()],
            vec!["c".to_string()],
        ]
    );
    let may: BTreeSet<String> = ["result".to_string(), "spec::threshold".into()].into();
    assert!(allowed(
        &may,
        &["spec".into(), "threshold".into(), "Threshold".into()]
    ));
    assert!(!allowed(&may, &["spec".into(), "parse".into()]));
}
