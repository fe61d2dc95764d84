#!/usr/bin/env node
import("../dist/src/client/cli.js").then((cli) => cli.run())
