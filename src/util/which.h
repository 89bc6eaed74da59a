/* which.h: whether a program is on $PATH, and where (which.c). */
#ifndef IMC_UTIL_WHICH_H
#define IMC_UTIL_WHICH_H

#include <stdbool.h>

/* True when an executable file named prog is in a directory of $PATH
 * (/usr/bin:/bin when unset). */
bool which_found(const char *prog);

/* The path of that file (caller frees), NULL when there is none. */
char *which_path(const char *prog);

/* The controller's Python, which Ansible gives recipes as
 * ansible_playbook_python and as the implicit localhost's
 * ansible_python_interpreter (its own sys.executable): the interpreter of
 * the first ansible-playbook on $PATH that is a Python script; else, as
 * imc runs no Python of its own, python3 on $PATH, else /usr/bin/python
 * (the path Ansible falls back to). Found once; never freed. */
const char *which_python(void);

#endif
