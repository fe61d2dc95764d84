// The environment as the service reads its settings (ServiceConfig.ts, OperationsConfig.ts).
// A variable set to the empty string counts as unset, so it takes its default: Effect's
// environment provider counts it as set, and Config.integer reads "" as Number("") = 0, so
// `AICS_PORT=` listened on a random port and `AICS_LIMIT_REQUESTS_PER_MINUTE=` turned that
// budget off, without a word, while an empty text setting (AICS_HOST=) already took its
// default. An env file with `NAME=` lines, as systemd and container tools write them, means
// "not set". Names and separators are as ConfigProvider.fromEnv reads them.

import { ConfigProvider } from "effect"

export const environmentProvider = (env: NodeJS.ProcessEnv = process.env): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "")),
    { pathDelim: "_", seqDelim: "," }
  )
