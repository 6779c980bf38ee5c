// Compiled only so that a test folder's precompiled header has a target to be built by
// (tests/CMakeLists.txt); it defines nothing.
