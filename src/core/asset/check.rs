//! What an asset may be: one of the media types a page and a model can show or play, at most
//! `MAX_BYTES`, and bytes that begin as files of its media type begin. The first bytes are
//! checked where a format has a signature, so a gateway or a tool server that sends HTML or an
//! error page under `image/png` is refused with that said, rather than kept as an image.

use crate::core::Problem;

/// The most bytes one asset may have: 32 MiB, above a large image of the catalogue's models and
/// minutes of speech, and within what a Worker holds in memory at once.
pub const MAX_BYTES: usize = 32 * 1024 * 1024;

/// The media types an asset may have, each with the signature its files begin with.
pub const MEDIA_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/gif",
    "audio/mpeg",
    "audio/wav",
    "audio/ogg",
    "audio/webm",
    "audio/flac",
    "audio/aac",
];

/// Checks that `bytes` may be kept as an asset of `media_type`.
///
/// # Errors
/// `invalid_input` at `/media_type` for a media type not in `MEDIA_TYPES`, and at `/bytes` for
/// no bytes, more than `MAX_BYTES`, or bytes that do not begin as the media type's files do.
pub fn check(media_type: &str, bytes: &[u8]) -> Result<(), Problem> {
    if !MEDIA_TYPES.contains(&media_type) {
        return Err(Problem::invalid(
            "/media_type",
            format!("An asset may not be of media type {media_type:?}; it may be one of {}.", MEDIA_TYPES.join(", ")),
        ));
    }
    if bytes.is_empty() {
        return Err(Problem::invalid("/bytes", "An asset has no bytes: a file of none shows nothing."));
    }
    if bytes.len() > MAX_BYTES {
        return Err(Problem::invalid(
            "/bytes",
            format!("An asset holds at most {MAX_BYTES} bytes (32 MiB), and this one has {}.", bytes.len()),
        ));
    }
    if !begins_as(media_type, bytes) {
        return Err(Problem::invalid(
            "/bytes",
            format!(
                "The bytes given as {media_type} do not begin as {media_type} files do ({}), so they are not kept.",
                first(bytes)
            ),
        ));
    }
    Ok(())
}

/// Whether `bytes` begin with the signature of `media_type`'s files; false for a media type not
/// in `MEDIA_TYPES`. A generation run's wire reads what a gateway made by the same signatures.
pub fn begins_as(media_type: &str, b: &[u8]) -> bool {
    let riff = |kind: &[u8]| b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == kind;
    match media_type {
        "image/png" => b.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => b.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a"),
        "image/webp" => riff(b"WEBP"),
        "audio/wav" => riff(b"WAVE"),
        // An ID3 tag, or straight away an MPEG audio frame: eleven set bits of sync, then a
        // version other than the reserved one and a layer other than the reserved one.
        "audio/mpeg" => b.starts_with(b"ID3") || (frame_sync(b) && b[1] & 0x18 != 0x08 && b[1] & 0x06 != 0),
        "audio/ogg" => b.starts_with(b"OggS"),
        "audio/webm" => b.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]),
        "audio/flac" => b.starts_with(b"fLaC"),
        // ADTS: twelve set bits of sync and layer 0; or an ID3 tag before it.
        "audio/aac" => b.starts_with(b"ID3") || (frame_sync(b) && b[1] & 0xF6 == 0xF0),
        _ => false,
    }
}

fn frame_sync(b: &[u8]) -> bool {
    b.len() >= 2 && b[0] == 0xFF && b[1] & 0xE0 == 0xE0
}

/// The first bytes, as a reader can tell what they are: text where they are text, else hex.
fn first(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(8)];
    if head.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("they begin {:?}", String::from_utf8_lossy(head))
    } else {
        let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
        format!("they begin {}", hex.join(" "))
    }
}
