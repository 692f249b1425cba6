// SPDX-License-Identifier: GPL-2.0
/*
 * gitinfo.c - blob ids, the user's identity and blame, from libgit2.
 */
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/output/gitinfo.h"
#include "trapcheck/base/util.h"

char *gitinfo_blob_id(const void *data, size_t len, size_t abbrev)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	int ret;

	git_libgit2_init();
	ret = git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB);
	git_libgit2_shutdown();
	if (ret)
		return NULL;
	git_oid_tostr(hex, sizeof(hex), &oid);
	if (abbrev < GIT_OID_HEXSZ)
		hex[abbrev] = '\0';
	return xstrdup(hex);
}

/* @key of @cfg as a new string, or NULL. */
static char *config_string(git_config *cfg, const char *key)
{
	git_buf buf = { 0 };
	char *s = NULL;

	if (!git_config_get_string_buf(&buf, cfg, key) && buf.ptr && *buf.ptr)
		s = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	return s;
}

char *gitinfo_identity(const char *dir)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL, *snap = NULL;
	char *name = NULL, *mail = NULL, *who = NULL;

	git_libgit2_init();
	if (dir && !git_repository_open_ext(&repo, dir, 0, NULL)) {
		if (git_repository_config(&cfg, repo))
			cfg = NULL;
	}
	if (!cfg && git_config_open_default(&cfg))
		cfg = NULL;
	if (cfg && !git_config_snapshot(&snap, cfg)) {
		name = config_string(snap, "user.name");
		mail = config_string(snap, "user.email");
	}
	if (name && mail)
		who = xasprintf("%s <%s>", name, mail);
	free(name);
	free(mail);
	git_config_free(snap);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return who;
}

/* "Fixes: ..." of the commit @id in @repo, or NULL. */
static char *fixes_line(git_repository *repo, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_commit *c;
	char *s = NULL;

	if (git_commit_lookup(&c, repo, id))
		return NULL;
	/* History cut short (a shallow clone): not the commit that added it. */
	if (!git_commit_parentcount(c) && git_repository_is_shallow(repo)) {
		git_commit_free(c);
		return NULL;
	}
	git_oid_tostr(hex, sizeof(hex), id);
	hex[12] = '\0';
	if (git_commit_summary(c))
		s = xasprintf("Fixes: %s (\"%s\")", hex, git_commit_summary(c));
	git_commit_free(c);
	return s;
}

/*
 * Line @line of the working tree's @text as HEAD's blob @old numbers it,
 * or 0 when the working tree changed that line (a zero-context diff).
 */
static size_t head_line(git_blob *old, const char *text, size_t len,
			size_t line)
{
	git_diff_options o;
	git_patch *patch = NULL;
	long delta = 0;
	size_t i, n, ret = 0;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 0;
	if (git_patch_from_blob_and_buffer(&patch, old, NULL, text, len, NULL,
					   &o))
		return 0;
	n = git_patch_num_hunks(patch);
	for (i = 0; i < n; i++) {
		const git_diff_hunk *h;
		size_t lines, old_next, new_next;

		if (git_patch_get_hunk(&h, &lines, patch, i))
			goto out_free;
		if (h->new_lines && line >= (size_t)h->new_start &&
		    line < (size_t)(h->new_start + h->new_lines))
			goto out_free;		/* changed, not committed */
		new_next = h->new_lines ? h->new_start + h->new_lines :
					  h->new_start + 1;
		if (line < new_next)
			break;
		old_next = h->old_lines ? h->old_start + h->old_lines :
					  h->old_start + 1;
		delta = (long)old_next - (long)new_next;
	}
	ret = (size_t)((long)line + delta);
out_free:
	git_patch_free(patch);
	return ret;
}

char *gitinfo_fixes_tag(const char *root, const char *rel, unsigned int line)
{
	git_blame_options opts;
	git_blame *blame = NULL;
	const git_blame_hunk *h;
	git_repository *repo = NULL;
	git_object *old = NULL;
	char *path = path_join(root, rel), *real = realpath(path, NULL);
	char *text = NULL, *tag = NULL, *spec = NULL, *top = NULL;
	const char *work, *in_repo;
	size_t len, at;

	git_libgit2_init();
	git_blame_options_init(&opts, GIT_BLAME_OPTIONS_VERSION);
	/*
	 * The tree's own repository only, not one it happens to sit in (a
	 * test's tree in the checker's repository is no kernel history).
	 */
	top = realpath(root, NULL);
	if (!real || !top ||
	    git_repository_open_ext(&repo, top, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL))
		goto out_free;
	work = git_repository_workdir(repo);
	if (!work || strncmp(real, work, strlen(work)))
		goto out_free;
	in_repo = real + strlen(work);
	/* The working tree's line as HEAD numbers it, if HEAD has it. */
	spec = xasprintf("HEAD:%s", in_repo);
	text = file_bytes(real, &len);
	if (!text || git_revparse_single(&old, repo, spec) ||
	    git_object_type(old) != GIT_OBJECT_BLOB)
		goto out_free;
	at = head_line((git_blob *)old, text, len, line);
	if (!at)
		goto out_free;
	/* One line's blame: git blame -L at,at. */
	opts.min_line = at;
	opts.max_line = at;
	if (git_blame_file(&blame, repo, in_repo, &opts))
		goto out_free;
	h = git_blame_get_hunk_byline(blame, at);
	if (h && !git_oid_is_zero(&h->final_commit_id))
		tag = fixes_line(repo, &h->final_commit_id);
out_free:
	git_blame_free(blame);
	git_object_free(old);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(spec);
	free(text);
	free(top);
	free(real);
	free(path);
	return tag;
}
