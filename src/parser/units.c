/* units.c: the multipliers of RADL's unit words (512m, 1g, 20GB, 2Gi) as
 * IM applies them: decimal for K/M/G/T, binary for the "i" forms, a
 * trailing B ignored, any other word 1. The parser applies them to numbers
 * (ast.c) and the feature table checks memory and performance units with
 * them (features.c). */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "parser/radl.h"
#include "util/banned.h"

double radl_unit_multiplier(const char *unit)
{
	char u[8];
	size_t n = strlen(unit);
	if (n == 0 || n > 3)
		return 1;
	for (size_t i = 0; i < n; i++)
		u[i] = (char)toupper((unsigned char)unit[i]);
	u[n] = '\0';
	if (u[n - 1] == 'B')
		u[--n] = '\0';
	static const struct { const char *u; double m; } mult[] = {
		{ "K", 1e3 }, { "KI", 1024.0 }, { "M", 1e6 }, { "MI", 1048576.0 },
		{ "G", 1e9 }, { "GI", 1073741824.0 }, { "T", 1e12 }, { "TI", 1099511627776.0 },
	};
	for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
		if (strcmp(u, mult[i].u) == 0)
			return mult[i].m;
	return 1;
}
