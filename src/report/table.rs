//! The floor of every Markdown report: GitHub-flavoured tables, and the one escape
//! every Markdown report leaves through, so a value from a result cannot become
//! markup where the Markdown is pasted.

/// Column alignment in a Markdown table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Align {
    Left,
    Right,
}

/// A GitHub-flavoured Markdown table. Pipes in cells are escaped, and a line break
/// in a value becomes a space (it would end the row).
pub fn md_table(headers: &[&str], aligns: &[Align], rows: &[Vec<String>]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut o = String::new();
    o.push('|');
    for h in headers {
        o.push_str(&format!(" {} |", cell(h)));
    }
    o.push_str("\n|");
    for (i, _) in headers.iter().enumerate() {
        o.push_str(match aligns.get(i).copied().unwrap_or(Align::Right) {
            Align::Left => ":--|",
            Align::Right => "--:|",
        });
    }
    o.push('\n');
    for r in rows {
        o.push('|');
        for c in r {
            o.push_str(&format!(" {} |", cell(c)));
        }
        o.push('\n');
    }
    o
}

/// Markdown as it may be pasted anywhere: every `<` that could open markup (a tag,
/// a comment, an autolink: `<` before a letter, `/`, `!` or `?`) and every `&` that
/// could open an entity written as HTML writes them (`&lt;`, `&amp;`), so a value
/// from a result (a URL, a label, a command line) cannot become markup where the
/// Markdown is shown (issue 20: a URL holding `<img onerror=…>`). `p99<20ms` and
/// `a & b` stay as they read. Code spans and fenced blocks show their text as it is
/// and are left alone. Applied once, where every Markdown report leaves
/// ([`crate::report::output::Rendered::markdown`]), so no renderer can forget it.
pub fn escape_html(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fenced = false;
    for line in md.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push_str(line);
        } else if fenced {
            out.push_str(line);
        } else {
            escape_inline(line, &mut out);
        }
    }
    out
}

/// One line's text: code spans (a run of backticks to the next run of the same
/// length, as Markdown reads them) copied, the rest escaped.
fn escape_inline(text: &str, out: &mut String) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let n = b[i..].iter().take_while(|&&c| c == b'`').count();
            let ticks = &text[i..i + n];
            let close = text[i + n..].match_indices(ticks).find(|(j, _)| {
                let at = i + n + j;
                b.get(at + n) != Some(&b'`') && (at == 0 || b[at - 1] != b'`')
            });
            let end = close.map_or(i + n, |(j, _)| i + n + j + n);
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        let next = text[i..].find(['`', '<', '&']).map_or(b.len(), |j| i + j);
        out.push_str(&text[i..next]);
        if next == b.len() || b[next] == b'`' {
            i = next;
            continue;
        }
        let after = b.get(next + 1).copied().unwrap_or(b' ');
        match b[next] {
            b'<' if after.is_ascii_alphabetic() || matches!(after, b'/' | b'!' | b'?') => {
                out.push_str("&lt;")
            }
            b'&' if after.is_ascii_alphabetic() || after == b'#' => out.push_str("&amp;"),
            c => out.push(c as char),
        }
        i = next + 1;
    }
}

#[cfg(test)]
mod tests {
    /// Bug (issue 20): Markdown reports wrote values raw, so a URL holding
    /// `<img onerror=…>` became markup wherever the report was pasted.
    #[test]
    fn regression_markdown_escapes_values_as_html_does() {
        let md = "### http://h/<img src=x onerror=alert(1)>\n\n\
                  | a & b &amp; <!-- c --> | `p99<1s` | p99<20ms |\n\
                  > **Failed:** p99 > 1s </script>\n\
                  ```text\n<kept as is>\n```\n";
        assert_eq!(
            super::escape_html(md),
            "### http://h/&lt;img src=x onerror=alert(1)>\n\n\
             | a & b &amp;amp; &lt;!-- c --> | `p99<1s` | p99<20ms |\n\
             > **Failed:** p99 > 1s &lt;/script>\n\
             ```text\n<kept as is>\n```\n"
        );
        // A backtick cannot open a way out: an unclosed one is a plain character.
        assert_eq!(super::escape_html("`<x>"), "`&lt;x>");
        assert_eq!(
            super::md_table(&["u"], &[super::Align::Left], &[vec!["a|b\nc".into()]]),
            "| u |\n|:--|\n| a\\|b c |\n"
        );
    }
}
