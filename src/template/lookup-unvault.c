/* lookup-unvault.c: the unvault lookup — the text of each named file
 * (found in the files search path, as the file lookup finds it),
 * decrypted with the vault secrets in use when it is vault-encrypted and
 * as it is otherwise, nothing stripped, as Ansible's unvault returns it.
 * Its own file: it is the template engine's one use of the vault
 * (util/vault.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

LOOKUP_FN(unvault)
{
	(void)kw;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *name = val_to_cstr(json_array_get(terms, i));
		char *path = ev_find_lookup_file(ev, name);
		struct strbuf sb = STRBUF_INIT;
		char *plain = NULL, *err = NULL;
		size_t np = 0;
		json_t *v = NULL;
		if (!path || strbuf_read_file(&sb, path) < 0) {
			ev_lookup_error(ev, "ansible.errors.AnsibleParserError", pos, "Unable to find file matching \"%s\" ",
					name);
		} else if (vault_is_encrypted(strbuf_str(&sb), sb.len)) {
			if (vault_decrypt_real_file(strbuf_str(&sb), sb.len, path, &plain, &np, &err) < 0)
				ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", err);
			else if (!(v = json_stringn(plain, np)))
				ev_error(ev, TMPL_ERR_LOOKUP, pos, "the decrypted file '%s' is not UTF-8 text", path);
		} else if (!(v = json_stringn(strbuf_str(&sb), sb.len)))
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "the file '%s' is not UTF-8 text", path);
		vault_free_plain(plain, np);
		free(err);
		strbuf_release(&sb);
		free(path);
		free(name);
		if (!v) {
			json_decref(r);
			return NULL;
		}
		json_array_append_new(r, v);
	}
	return r;
}
