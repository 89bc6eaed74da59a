# src/provision templating: template*, expr*, filters*, lookup* (Jinja2 subset).
# The Jinja2-style engine of the built-in Ansible executor (template.h is
# its contract with the executor; expr.h is internal).
libimc_la_SOURCES += src/provision/template.h src/provision/expr.h \
	src/provision/template-lex.c src/provision/expr-parse.c \
	src/provision/expr-value.c src/provision/expr-eval.c \
	src/provision/template.c src/provision/filters.c \
	src/provision/filters-data.c src/provision/filters-regex.c \
	src/provision/expr-tests.c src/provision/lookup.c
