#pragma once
// Whether this test executable was built with AddressSanitizer (-DPRECIS_SANITIZE=ON or the
// fuzz tree). Its shadow memory and quarantine of freed blocks add hundreds of MiB of
// resident memory by design, so absolute memory budgets are checked by the normal build's
// run of the same test, not by this one.
namespace precis::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kBuiltWithAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kBuiltWithAddressSanitizer = true;
#else
inline constexpr bool kBuiltWithAddressSanitizer = false;
#endif
#else
inline constexpr bool kBuiltWithAddressSanitizer = false;
#endif

}  // namespace precis::test
