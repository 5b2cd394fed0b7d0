// Replacement global operator new/delete that count allocations while a flag is set, for the
// "no heap allocation per event" test. Kept in their own translation unit: when GCC can see
// both a malloc-based operator new and a caller's inlined delete it warns (wrongly) about
// mismatched allocation functions.
#include <cstdint>
#include <cstdlib>
#include <new>

namespace mltwin_test {
bool g_count_allocs = false;
std::uint64_t g_allocs = 0;
}  // namespace mltwin_test

void* operator new(std::size_t n) {
  if (mltwin_test::g_count_allocs) ++mltwin_test::g_allocs;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
