// SPDX-License-Identifier: GPL-2.0
import { register } from "node:module";
register("./json-hook.mjs", import.meta.url);
