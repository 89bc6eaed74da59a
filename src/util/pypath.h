/* pypath.h: Python's os.path.expandvars and os.path.expanduser (posixpath),
 * which Ansible applies to every module parameter of type 'path' on the
 * node (AnsibleModule's _check_type_path) and to a controller file it
 * looks up by an absolute or ~ name (unfrackpath). Where the variables and
 * homes come from is the caller's: the node's environment for a module,
 * the controller's own for a controller file. */
#ifndef IMC_UTIL_PYPATH_H
#define IMC_UTIL_PYPATH_H

#include <stdbool.h>

/* The value of environment variable name, or NULL when it is unset. */
typedef const char *(*pypath_env_fn)(void *ud, const char *name);
/* The home directory of user (NULL: the current user, as $HOME or else
 * the passwd entry give it), or NULL when there is none. */
typedef const char *(*pypath_home_fn)(void *ud, const char *user);

/* os.path.expandvars(s): each $NAME or ${NAME} (NAME of ASCII letters,
 * digits and _; anything but } between braces) whose variable is set is
 * replaced by its value; an unset one is left as written. A new string. */
char *pypath_expandvars(const char *s, pypath_env_fn env, void *ud);

/* os.path.expanduser(s): a leading ~ or ~USER up to the first / becomes
 * that home, its trailing slashes dropped ("/" when nothing is left); a
 * user without a home leaves s as it is. A new string. */
char *pypath_expanduser(const char *s, pypath_home_fn home, void *ud);

/* Whether s has anything either function would look up: a '$', or a
 * leading '~'. */
bool pypath_may_expand(const char *s);

/* The controller's own expansion, expandvars then expanduser, with this
 * process's environment and passwd database (unfrackpath's). */
char *pypath_expand_local(const char *s);
/* expandvars alone, with this process's environment (the expandvars
 * filter's). */
char *pypath_expandvars_local(const char *s);

#endif
