# The stand-in for a test whose prerequisite was missing at configure time.
message(FATAL_ERROR "this test could not be built or run: ${MSG} is missing; "
                    "install it (scripts/install-deps.sh) and configure again")
