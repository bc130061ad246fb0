//! HTTP/2 in a message's summary: the frames of a packet, and a request's
//! method and path or a response's status from its header block, so that
//! a gRPC `Get` can be told from a `Put` on a failure's page.
//!
//! A packet is read as HTTP/2 when it starts with the client's connection
//! preface, or when it is a whole number of well-formed frames (RFC 9113,
//! section 4.1). Header blocks are decoded as far as they can be without
//! the connection's dynamic table (RFC 7541): a field that refers to an
//! entry of that table is skipped. Requests on a connection's first use of
//! a path carry it literally (h2 indexes it for the next ones), which is
//! the common case of a test's short-lived clients.

/// The client connection preface (RFC 9113, section 3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The summary of `payload` as HTTP/2, if it is HTTP/2.
pub(super) fn summary(payload: &[u8], text: fn(&[u8]) -> String) -> Option<String> {
    let (preface, rest) = match payload.strip_prefix(PREFACE) {
        Some(rest) => (true, rest),
        None => (false, payload),
    };
    let frames = frames(rest)?;
    if !preface && frames.is_empty() {
        return None;
    }
    // What the requests, responses and data said; else the frames' names.
    let mut said: Vec<String> = frames
        .iter()
        .filter_map(|&(kind, flags, body)| match kind {
            DATA => Some(text(unpadded(flags, body)?)).filter(|t| !t.is_empty()),
            HEADERS => headers(flags, body),
            _ => None,
        })
        .collect();
    said.dedup();
    let words = if said.is_empty() {
        let mut names: Vec<String> = frames
            .iter()
            .map(|&(kind, flags, _)| name(kind, flags))
            .collect();
        names.dedup();
        names.join(", ")
    } else {
        said.join(" ")
    };
    Some(if preface {
        format!("HTTP/2 preface, {words}")
            .trim_end_matches(", ")
            .to_string()
    } else {
        words
    })
}

const DATA: u8 = 0;
const HEADERS: u8 = 1;

/// The frames of `bytes` (type, flags, payload), when it is a whole
/// number of frames of known types.
fn frames(mut bytes: &[u8]) -> Option<Vec<(u8, u8, &[u8])>> {
    let mut frames = Vec::new();
    while !bytes.is_empty() {
        if bytes.len() < 9 {
            return None;
        }
        let len = usize::from(bytes[0]) << 16 | usize::from(bytes[1]) << 8 | usize::from(bytes[2]);
        let (kind, flags) = (bytes[3], bytes[4]);
        if kind > 9 || bytes.len() < 9 + len {
            return None;
        }
        frames.push((kind, flags, &bytes[9..9 + len]));
        bytes = &bytes[9 + len..];
    }
    Some(frames)
}

fn name(kind: u8, flags: u8) -> String {
    let ack = flags & 1 != 0;
    match kind {
        0 => "DATA",
        1 => "HEADERS",
        2 => "PRIORITY",
        3 => "RST_STREAM",
        4 if ack => "SETTINGS ack",
        4 => "SETTINGS",
        5 => "PUSH_PROMISE",
        6 if ack => "PING ack",
        6 => "PING",
        7 => "GOAWAY",
        8 => "WINDOW_UPDATE",
        _ => "CONTINUATION",
    }
    .to_string()
}

/// A DATA or HEADERS frame's payload without its padding.
fn unpadded(flags: u8, body: &[u8]) -> Option<&[u8]> {
    const PADDED: u8 = 0x8;
    if flags & PADDED == 0 {
        return Some(body);
    }
    let (&pad, rest) = body.split_first()?;
    rest.get(..rest.len().checked_sub(usize::from(pad))?)
}

/// What a HEADERS frame says: "POST /kv.Store/Get", "200", "grpc-status
/// 5"; `None` when none of that can be read.
fn headers(flags: u8, body: &[u8]) -> Option<String> {
    const PRIORITY: u8 = 0x20;
    let mut block = unpadded(flags, body)?;
    if flags & PRIORITY != 0 {
        block = block.get(5..)?;
    }
    let fields = fields(block);
    let get = |n: &str| fields.iter().find(|(name, _)| name == n).map(|f| &f.1);
    let said = match (get(":method"), get(":path"), get(":status")) {
        (Some(m), Some(p), _) => format!("{m} {p}"),
        (None, Some(p), _) => p.clone(),
        (_, _, Some(s)) => s.clone(),
        _ => String::new(),
    };
    let said = match get("grpc-status").filter(|s| *s != "0") {
        Some(s) => format!("{said} grpc-status {s}").trim_start().to_string(),
        None => said,
    };
    (!said.is_empty()).then_some(said)
}

/// The fields of a header block that can be read without the dynamic
/// table, until one cannot be parsed.
fn fields(mut block: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    while let Some(&first) = block.first() {
        let parsed = if first & 0x80 != 0 {
            // Indexed field.
            integer(block, 7).map(|(i, rest)| (static_field(i), rest))
        } else if first & 0xe0 == 0x20 {
            // Dynamic table size update.
            integer(block, 5).map(|(_, rest)| (None, rest))
        } else {
            // A literal, with or without indexing.
            let prefix = if first & 0x40 != 0 { 6 } else { 4 };
            literal(block, prefix)
        };
        let Some((field, rest)) = parsed else {
            break;
        };
        out.extend(field);
        block = rest;
    }
    out
}

/// A literal field: its name (by static index or literal) and value.
#[allow(clippy::type_complexity)]
fn literal(block: &[u8], prefix: u8) -> Option<(Option<(String, String)>, &[u8])> {
    let (index, rest) = integer(block, prefix)?;
    let (name, rest) = if index == 0 {
        let (name, rest) = string(rest)?;
        (Some(name), rest)
    } else {
        (static_field(index).map(|f| f.0), rest)
    };
    let (value, rest) = string(rest)?;
    Some((name.map(|n| (n, value)), rest))
}

/// The static table's entries that a summary uses (RFC 7541, appendix
/// A); `None` for the others and for the dynamic table.
fn static_field(index: usize) -> Option<(String, String)> {
    let (name, value) = match index {
        1 => (":authority", ""),
        2 => (":method", "GET"),
        3 => (":method", "POST"),
        4 => (":path", "/"),
        5 => (":path", "/index.html"),
        6 => (":scheme", "http"),
        7 => (":scheme", "https"),
        8 => (":status", "200"),
        9 => (":status", "204"),
        10 => (":status", "206"),
        11 => (":status", "304"),
        12 => (":status", "400"),
        13 => (":status", "404"),
        14 => (":status", "500"),
        _ => return None,
    };
    Some((name.to_string(), value.to_string()))
}

/// An integer with a `prefix`-bit prefix (RFC 7541, section 5.1).
fn integer(bytes: &[u8], prefix: u8) -> Option<(usize, &[u8])> {
    let max = (1usize << prefix) - 1;
    let (&first, mut rest) = bytes.split_first()?;
    let mut value = usize::from(first) & max;
    if value < max {
        return Some((value, rest));
    }
    let mut shift = 0;
    loop {
        let (&b, r) = rest.split_first()?;
        rest = r;
        value = value.checked_add(usize::from(b & 0x7f).checked_shl(shift)?)?;
        shift += 7;
        if b & 0x80 == 0 || shift > 28 {
            return (b & 0x80 == 0).then_some((value, rest));
        }
    }
}

/// A string literal (RFC 7541, section 5.2), Huffman-coded or not.
fn string(bytes: &[u8]) -> Option<(String, &[u8])> {
    let huffman = *bytes.first()? & 0x80 != 0;
    let (len, rest) = integer(bytes, 7)?;
    let raw = rest.get(..len)?;
    let s = if huffman {
        decode_huffman(raw)?
    } else {
        raw.to_vec()
    };
    Some((String::from_utf8_lossy(&s).into_owned(), &rest[len..]))
}

/// The bit length of each symbol's Huffman code, 256 bytes and EOS (RFC
/// 7541, appendix B). The code is canonical: codes of one length are
/// consecutive in symbol order, so the lengths determine it.
const CODE_LENGTHS: [u8; 257] = [
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5,
    5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6,
    6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22,
    23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22,
    21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20,
    22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19,
    21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22,
    22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];

/// Decodes a Huffman-coded string; `None` when it is not one.
fn decode_huffman(bytes: &[u8]) -> Option<Vec<u8>> {
    // Canonical decoding: per length, the first code, where its symbols
    // start in symbol order, and how many there are.
    let mut count = [0u32; 31];
    for &l in &CODE_LENGTHS {
        count[usize::from(l)] += 1;
    }
    let mut symbols: Vec<u16> = (0..257).collect();
    symbols.sort_by_key(|&s| (CODE_LENGTHS[usize::from(s)], s));
    let (mut first, mut start) = ([0u32; 31], [0u32; 31]);
    let (mut code, mut index) = (0u32, 0u32);
    for len in 1..31 {
        code = (code + count[len - 1]) << 1;
        index += count[len - 1];
        first[len] = code;
        start[len] = index;
    }
    let mut out = Vec::new();
    let (mut code, mut len) = (0u32, 0usize);
    for byte in bytes {
        for bit in (0..8).rev() {
            code = code << 1 | u32::from(byte >> bit & 1);
            len += 1;
            if len > 30 {
                return None;
            }
            if code >= first[len] && code - first[len] < count[len] {
                let symbol = symbols[(start[len] + code - first[len]) as usize];
                out.push(u8::try_from(symbol).ok()?);
                (code, len) = (0, 0);
            }
        }
    }
    // What is left is padding: at most 7 bits, all ones.
    (len < 8 && code == (1 << len) - 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn frame(kind: u8, flags: u8, stream: u8, body: &[u8]) -> Vec<u8> {
        let n = body.len();
        let mut f = vec![
            (n >> 16) as u8,
            (n >> 8) as u8,
            n as u8,
            kind,
            flags,
            0,
            0,
            0,
            stream,
        ];
        f.extend_from_slice(body);
        f
    }

    fn printable(b: &[u8]) -> String {
        super::super::runs(b)
    }

    #[test]
    fn huffman_strings_decode_as_rfc_7541_gives_them() {
        // Appendix C.4.1 to C.4.3.
        assert_eq!(
            decode_huffman(&hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff")).unwrap(),
            b"www.example.com"
        );
        assert_eq!(decode_huffman(&hex("a8eb 1064 9cbf")).unwrap(), b"no-cache");
        assert_eq!(
            decode_huffman(&hex("25a8 49e9 5ba9 7d7f")).unwrap(),
            b"custom-key"
        );
        assert_eq!(
            decode_huffman(&hex("25a8 49e9 5bb8 e8b4 bf")).unwrap(),
            b"custom-value"
        );
        // Padding longer than 7 bits is not a string.
        assert_eq!(
            decode_huffman(&hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff ff")),
            None
        );
    }

    #[test]
    fn header_blocks_give_method_path_and_status() {
        // C.4.1: GET, http, /, www.example.com (Huffman).
        let block = hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff");
        let fields = fields(&block);
        assert_eq!(fields[0], (":method".into(), "GET".into()));
        assert_eq!(fields[2], (":path".into(), "/".into()));
        assert_eq!(fields[3], (":authority".into(), "www.example.com".into()));
        // A gRPC request: POST, a literal path, then a dynamic-table
        // reference that cannot be read (and is skipped).
        let mut block = vec![0x83, 0x86, 0x44, 21];
        block.extend_from_slice(b"/ledger.Ledger/Record");
        block.push(0xbe);
        assert_eq!(
            headers(0x4, &block).as_deref(),
            Some("POST /ledger.Ledger/Record")
        );
        assert_eq!(headers(0x4, &[0x88]).as_deref(), Some("200"));
    }

    #[test]
    fn packets_are_summed_up_by_what_their_frames_say() {
        // A request: HEADERS, then a gRPC message (5-byte prefix, protobuf).
        let mut headers = vec![0x83, 0x86, 0x44, 18];
        headers.extend_from_slice(b"/kv.Store/GetValue");
        let mut packet = frame(HEADERS, 0x4, 1, &headers);
        packet.extend(frame(DATA, 0x1, 1, b"\0\0\0\0\x07\n\x05alice"));
        assert_eq!(
            summary(&packet, printable).as_deref(),
            Some("POST /kv.Store/GetValue alice")
        );
        // Control frames by name.
        let mut packet = PREFACE.to_vec();
        packet.extend(frame(4, 0, 0, &[0, 3, 0, 0, 0, 100]));
        packet.extend(frame(8, 0, 0, &[0, 0, 0x10, 0]));
        assert_eq!(
            summary(&packet, printable).as_deref(),
            Some("HTTP/2 preface, SETTINGS, WINDOW_UPDATE")
        );
        assert_eq!(
            summary(&frame(4, 1, 0, &[]), printable).as_deref(),
            Some("SETTINGS ack")
        );
        // Not HTTP/2: a frame of an unknown type, or a partial one.
        assert_eq!(summary(&[0, 0, 0, 0x0c, 1, 2, 3, 4, 5], printable), None);
        assert_eq!(summary(&frame(0, 0, 1, b"abc")[..10], printable), None);
    }
}
