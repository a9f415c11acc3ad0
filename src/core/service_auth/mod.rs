//! The runtime as an OAuth client of the services a connection reaches, and the sealing of what a
//! person gives a connection. Pure: requests are built and answers read here, and sent by
//! `ops::service_auth` over the transport the shell supplies.

pub mod seal;
