# src/provision templating: template*, expr*, filters*, lookup* (Jinja2 subset).
