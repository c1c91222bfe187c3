//! `table_json export TABLE > rooms.json` and `table_json import TABLE < rooms.json`: a table to
//! JSON and back (docs/operate.md, "Restore"). Uses the standard AWS configuration (region,
//! credentials, `AWS_ENDPOINT_URL_DYNAMODB` for an emulator).

use std::io::Read as _;

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, table) = match args.as_slice() {
        [c, t] if c == "export" || c == "import" => (c.as_str(), t.as_str()),
        _ => return Err("usage: table_json export|import TABLE (JSON on stdout/stdin)".into()),
    };
    let client = madang_infra::dynamo::client_from_env().await;
    if command == "export" {
        let items = madang_tests::table_json::export(&client, table).await?;
        println!(
            "{}",
            serde_json::to_string_pretty(&items).map_err(|e| e.to_string())?
        );
        eprintln!("exported {} items from {table}", items.len());
    } else {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())?;
        let items: Vec<serde_json::Value> =
            serde_json::from_str(&text).map_err(|e| format!("not a JSON array of items: {e}"))?;
        let n = madang_tests::table_json::import(&client, table, &items).await?;
        eprintln!("imported {n} items into {table}");
    }
    Ok(())
}
