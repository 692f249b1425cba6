// SPDX-License-Identifier: GPL-2.0
// Node 20: the JSON modules a package imports without attributes.
import { readFile } from "node:fs/promises";
export async function load(url, context, next) {
	if (url.endsWith(".json"))
		return { format: "json", shortCircuit: true,
			 source: await readFile(new URL(url), "utf8") };
	return next(url, context);
}
