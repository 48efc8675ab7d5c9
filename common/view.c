/* common/view.c: being written. */
