//! What the server must know about the page it serves with `--static`:
//! the inline scripts its policy has to allow.

use std::path::Path;

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The base64 SHA-256 of every inline script (a `<script>` without `src`)
/// in the HTML files directly in `dir`, as a Content-Security-Policy's
/// `'sha256-…'` names them: the exact text between the tags. Files that
/// cannot be read contribute nothing (their scripts are then refused by
/// the browser, and say so in its console).
pub(crate) fn inline_script_hashes(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut hashes = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("html") {
            continue;
        }
        if let Ok(html) = std::fs::read_to_string(&path) {
            for script in inline_scripts(&html) {
                hashes
                    .push(base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script)));
            }
        }
    }
    hashes.sort();
    hashes.dedup();
    hashes
}

/// The bodies of the inline `<script>` elements of an HTML text.
fn inline_scripts(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else {
            break;
        };
        let tag = &after[..open_end];
        let body_and_rest = &after[open_end + 1..];
        let Some(close) = body_and_rest.find("</script>") else {
            break;
        };
        if !tag.contains("src=") {
            out.push(&body_and_rest[..close]);
        }
        rest = &body_and_rest[close..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inline_scripts_are_found_with_their_exact_text() {
        let html =
            "<script src=\"config.js\"></script>\n<script type=\"module\">\n  init();\n</script>";
        assert_eq!(inline_scripts(html), vec!["\n  init();\n"]);
        assert!(inline_scripts("<p>no scripts</p><script").is_empty());
    }
}
