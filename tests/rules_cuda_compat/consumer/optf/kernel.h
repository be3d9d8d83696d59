#pragma once
int optf_value();
