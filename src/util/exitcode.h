/* exitcode.h: the exit statuses of imc and imc-train (listed in imc(1)).
 * Only main() picks one; library functions return 0 / -1 and a struct diag. */
#ifndef IMC_EXITCODE_H
#define IMC_EXITCODE_H

enum imc_exit {
	IMC_EXIT_OK = 0,          /* success */
	IMC_EXIT_FAILED = 1,      /* a node or a task failed */
	IMC_EXIT_USAGE = 64,      /* bad command line */
	IMC_EXIT_DATAERR = 65,    /* invalid RADL, JSON, YAML or auth input */
	IMC_EXIT_NOINPUT = 66,    /* an input file or infrastructure does not exist */
	IMC_EXIT_UNAVAILABLE = 69,/* cloud or SSH unreachable */
	IMC_EXIT_SOFTWARE = 70,   /* internal error (a bug) */
	IMC_EXIT_IOERR = 74,      /* local I/O error */
	IMC_EXIT_TEMPFAIL = 75,   /* retryable (e.g. infrastructure locked) */
	IMC_EXIT_NOPERM = 77,     /* credentials rejected */
};

#endif
