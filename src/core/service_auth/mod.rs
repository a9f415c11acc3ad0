//! Outbound authorization for connections. This branch holds only the interface of sealing, which
//! another branch implements with AES-256-GCM; see `seal`.

pub mod seal;
