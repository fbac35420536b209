/* cmd.h - the commands of tcsim, one file each in cmd/, dispatched by
 * main.c: each takes its own argv (argv[0] = the command's name) and
 * returns the process's exit code. */
#ifndef TCSIM_CMD_H
#define TCSIM_CMD_H

/* tcsim explain --tc FILE [run options] [-v] [--trace FILE|- [--trace-filter EXPR]]
 *              --packet [K:]N CAPTURE... */
int explain_main(int argc, char **argv);

#endif
