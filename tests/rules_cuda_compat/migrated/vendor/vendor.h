// A header-only dependency from WORKSPACE (new_local_repository).
#pragma once

inline int vendor_fill_value() { return 7; }
