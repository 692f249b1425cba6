// SPDX-License-Identifier: GPL-2.0
/*
 * gitinfo.c - blob ids, the user's identity and blame, from libgit2.
 */
#include <errno.h>
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

void gitinfo_files_free(struct gitinfo_file *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(v[i].rel);
		free(v[i].text);
	}
	free(v);
}

/* "<what>: <libgit2's last error>" into @err; -EINVAL. */
static int git_fail(char *err, size_t errlen, const char *what)
{
	const git_error *e = git_error_last();

	snprintf(err, errlen, "%s: %s", what, e && e->message ? e->message :
		 "failed");
	return -EINVAL;
}

/* One commit as git format-patch writes it, onto @out. */
static int commit_patch(git_repository *repo, git_commit *c, size_t k,
			size_t n, struct bytes *out, char *err, size_t errlen)
{
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	git_diff *diff = NULL;
	git_buf buf = { 0 };
	char hex[GIT_OID_HEXSZ + 1], *head;
	const char *body = git_commit_body(c);
	int ret = 0;

	if (git_commit_parentcount(c) &&
	    (git_commit_parent(&parent, c, 0) ||
	     git_commit_tree(&old, parent)))
		ret = git_fail(err, errlen, "a commit's parent");
	if (!ret && git_commit_tree(&new, c))
		ret = git_fail(err, errlen, "a commit's tree");
	if (!ret && (git_diff_tree_to_tree(&diff, repo, old, new, NULL) ||
		     git_diff_find_similar(diff, NULL) ||
		     git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH)))
		ret = git_fail(err, errlen, "a commit's diff");
	if (!ret) {
		git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
		head = xasprintf("From %s Mon Sep 17 00:00:00 2001\n"
				 "From: %s <%s>\nSubject: [PATCH %zu/%zu] %s\n"
				 "\n%s%s---\n", hex, git_commit_author(c)->name,
				 git_commit_author(c)->email, k, n,
				 git_commit_summary(c) ? git_commit_summary(c) :
				 "", body ? body : "", body ? "\n" : "");
		bytes_put(out, head, strlen(head));
		bytes_put(out, buf.ptr, buf.size);
		bytes_put(out, "-- \n\n", 5);
		free(head);
	}
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	return ret;
}

/* The files whose text at @from differs from the work tree's. */
static int base_files(git_repository *repo, git_object *from,
		      struct gitinfo_file **v, size_t *nr, char *err,
		      size_t errlen)
{
	git_diff_options o;
	git_object *tree = NULL;
	git_diff *diff = NULL;
	size_t i, n, alloc = 0;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	if (git_object_peel(&tree, from, GIT_OBJECT_TREE) ||
	    git_diff_tree_to_workdir(&diff, repo, (git_tree *)tree, &o)) {
		git_object_free(tree);
		return git_fail(err, errlen, "the range's first commit");
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct gitinfo_file *f;
		git_blob *blob;

		if (d->status == GIT_DELTA_IGNORED)
			continue;
		f = PUSH(*v, *nr, alloc);
		f->rel = xstrdup(d->new_file.path ? d->new_file.path :
				 d->old_file.path);
		f->text = NULL;
		f->len = 0;
		if (d->status == GIT_DELTA_ADDED ||
		    git_blob_lookup(&blob, repo, &d->old_file.id))
			continue;
		f->len = (size_t)git_blob_rawsize(blob);
		f->text = xmalloc(f->len + 1);
		memcpy(f->text, git_blob_rawcontent(blob), f->len);
		f->text[f->len] = '\0';
		git_blob_free(blob);
	}
	git_diff_free(diff);
	git_object_free(tree);
	return 0;
}

int gitinfo_range(const char *root, const char *range, char **mbox,
		  struct gitinfo_file **base, size_t *nr_base, char *err,
		  size_t errlen)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_revspec spec = { 0 };
	git_oid *ids = NULL, id;
	size_t nr = 0, alloc = 0, k, count = 0, done;
	struct bytes out = { 0 };
	char *top = realpath(root, NULL);
	int ret = 0;

	*mbox = NULL;
	*base = NULL;
	*nr_base = 0;
	git_libgit2_init();
	if (!top || git_repository_open_ext(&repo, top,
					    GIT_REPOSITORY_OPEN_NO_SEARCH,
					    NULL)) {
		snprintf(err, errlen, "%s: --diff-range: not the work tree of "
			 "a git repository", root);
		ret = -EINVAL;
		goto out_free;
	}
	if (git_revparse(&spec, repo, range) ||
	    !(spec.flags & GIT_REVSPEC_RANGE) ||
	    (spec.flags & GIT_REVSPEC_MERGE_BASE)) {
		snprintf(err, errlen, "--diff-range %s: not a range A..B of "
			 "%s's repository", range, root);
		ret = -EINVAL;
		goto out_free;
	}
	if (git_revwalk_new(&walk, repo) ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL |
				GIT_SORT_REVERSE) ||
	    git_revwalk_push(walk, git_object_id(spec.to)) ||
	    git_revwalk_hide(walk, git_object_id(spec.from))) {
		ret = git_fail(err, errlen, range);
		goto out_free;
	}
	while (!git_revwalk_next(&id, walk))
		*PUSH(ids, nr, alloc) = id;
	for (k = 0, count = 0; k < nr; k++) {
		git_commit *c;

		if (git_commit_lookup(&c, repo, &ids[k]))
			continue;
		count += git_commit_parentcount(c) <= 1;
		git_commit_free(c);
	}
	for (k = 0, done = 0; !ret && k < nr; k++) {
		git_commit *c;

		if (git_commit_lookup(&c, repo, &ids[k])) {
			ret = git_fail(err, errlen, range);
			break;
		}
		if (git_commit_parentcount(c) <= 1)
			ret = commit_patch(repo, c, ++done, count, &out, err,
					   errlen);
		git_commit_free(c);
	}
	if (!ret && !count) {
		snprintf(err, errlen, "--diff-range %s: no commit in the "
			 "range", range);
		ret = -EINVAL;
	}
	if (!ret)
		ret = base_files(repo, spec.from, base, nr_base, err, errlen);
	bytes_put(&out, "", 1);
	if (!ret)
		*mbox = (char *)out.data;
	else
		bytes_free(&out);
out_free:
	free(ids);
	git_object_free(spec.from);
	git_object_free(spec.to);
	git_revwalk_free(walk);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(top);
	return ret;
}
