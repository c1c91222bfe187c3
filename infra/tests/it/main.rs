//! The stores' integration tests, in one test binary: the embedded store on real files, and
//! the DynamoDB store on dynalite and moto (`scripts/test` starts them). A new subject is a new
//! file here and a `mod` line below (`docs/contributing.md`, "Tests").

mod dynamo;
mod embedded;
