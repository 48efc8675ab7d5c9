/* common/level.c: being written. */
