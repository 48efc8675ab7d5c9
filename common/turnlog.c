/* common/turnlog.c: being written. */
