/* Plain host code: its object must hold no device images. */
int host_only_answer(void) { return 42; }
