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

/// The modules directly under `src/report/` (a file or a folder each: a kind of run,
/// or a piece of the floor they share).
fn report_children(report: &Path) -> BTreeSet<String> {
    std::fs::read_dir(report)
        .unwrap()
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .filter(|n| n != "mod")
        .collect()
}

#[test]
fn report_has_no_import_circle() {
    let report = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report");
    let children = report_children(&report);
    let mut files = Vec::new();
    rust_files(&report, &mut files);
    // child → (child it uses → where)
    let mut uses: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&report).unwrap();
        let parts: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .collect();
        if parts == ["mod"] {
            continue;
        }
        let me = parts[0].clone();
        // `super::` from report/x.rs and report/x/mod.rs is report; from report/x/y.rs
        // it is x, and `super::super::` is report.
        let up = if parts.len() > 1 && parts[1] != "mod" {
            "super::super::"
        } else {
            "super::"
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("#[cfg(test)]") {
                break;
            }
            if t.starts_with("//") {
                continue;
            }
            let mut named: Vec<String> = Vec::new();
            for path in crate_paths(line) {
                if path.len() > 1 && path[0] == "report" {
                    named.push(path[1].clone());
                }
            }
            let mut rest = line;
            while let Some(i) = rest.find(up) {
                let before = rest[..i].chars().last();
                rest = &rest[i + up.len()..];
                if before.is_some_and(|c| c == ':' || c.is_alphanumeric()) {
                    continue;
                }
                if let Some(group) = rest.strip_prefix('{') {
                    let end = group.find('}').unwrap_or(group.len());
                    named.extend(
                        group[..end]
                            .split(',')
                            .map(|p| p.trim().split("::").next().unwrap_or("").to_string()),
                    );
                } else {
                    named.push(
                        rest.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect(),
                    );
                }
            }
            for other in named {
                if other != me && children.contains(&other) {
                    uses.entry(me.clone())
                        .or_default()
                        .entry(other)
                        .or_insert_with(|| format!("src/report/{}:{}", rel.display(), n + 1));
                }
            }
        }
    }
    // A depth-first walk; a node met again while on the path closes a circle.
    fn walk(
        node: &str,
        uses: &BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut circle = path[i..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in uses.get(node).into_iter().flat_map(|m| m.keys()) {
            if let Some(c) = walk(next, uses, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in uses.keys() {
        if let Some(circle) = walk(node, &uses, &mut Vec::new(), &mut done) {
            let arrows: Vec<String> = circle
                .windows(2)
                .map(|w| {
                    format!(
                        "  report::{} → report::{} ({})",
                        w[0], w[1], uses[&w[0]][&w[1]]
                    )
                })
                .collect();
            panic!(
                "an import circle inside src/report (the kinds stand on the floor, never the \
                 other way):\n{}",
                arrows.join("\n")
            );
        }
    }
}
