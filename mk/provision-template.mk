# src/provision templating: template*, expr*, filters*, lookup* (Jinja2 subset).
libimc_la_SOURCES += src/provision/template.h
