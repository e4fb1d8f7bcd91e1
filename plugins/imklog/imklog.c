/* imklog.c — placeholder while being written (issue #5). */
typedef int sluice_placeholder_imklog;
