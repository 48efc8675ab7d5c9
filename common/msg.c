/* common/msg.c: being written. */
