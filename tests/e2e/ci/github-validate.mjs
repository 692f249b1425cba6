// SPDX-License-Identifier: GPL-2.0
// github-validate.mjs FILE...: GitHub's own workflow parser
// (@actions/workflow-parser, what the Actions editor runs) on each
// workflow file; one line per error, exit 1 when there is any. Run with
// node --import ./register.mjs (the parser imports its JSON schema
// without import attributes, which Node 20 wants: json-hook.mjs).
import { parseWorkflow, NoOperationTraceWriter } from "@actions/workflow-parser";
import { readFileSync } from "node:fs";

let bad = 0;
for (const file of process.argv.slice(2)) {
	const r = parseWorkflow({ name: file, content: readFileSync(file, "utf8") },
			       new NoOperationTraceWriter());
	for (const e of r.context.errors.getErrors()) {
		console.log(`${file}: ${e.message}`);
		bad++;
	}
}
process.exit(bad ? 1 : 0);
