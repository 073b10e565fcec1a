// SPDX-License-Identifier: MIT
/*
 * The runtime's AllocationRegistry (runtime/src/core/allocation_registry.h)
 * on its own, against a plain std::map model: its base index resizes a few
 * slots per call, so lookups, inserts and removals must stay exact while a
 * resize drains, through growth to 10^5 entries, a shrink back to a handful,
 * and bursts that resize again before a drain has finished.
 */
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <setjmp.h>

extern "C" {
#include <cmocka.h>
}

#include "core/allocation_registry.h"

using npu::rt::Allocation;
using npu::rt::AllocationRegistry;
using npu::rt::MemoryKind;

namespace {

constexpr uint64_t kPage = 4096;

struct Model {
    AllocationRegistry reg;
    std::map<uint64_t, uint64_t> live;  // base -> mapped
    std::mt19937_64 rng{12345};

    void Insert(uint64_t base, uint64_t mapped) {
        reg.Insert(Allocation::Of(MemoryKind::kDevice, 0, base, mapped, mapped, mapped, kPage));
        live[base] = mapped;
    }

    void Remove(uint64_t base) {
        auto got = reg.Remove(base);
        auto it = live.find(base);
        if (it == live.end()) {
            assert_false(got.has_value());
            return;
        }
        assert_true(got.has_value());
        assert_int_equal(got->base, base);
        assert_int_equal(got->mapped, it->second);
        live.erase(it);
    }

    // A random live base (the map's nth), or 0 if none.
    uint64_t AnyBase() {
        if (live.empty())
            return 0;
        auto it = live.begin();
        std::advance(it, static_cast<long>(rng() % std::min<size_t>(live.size(), 64)));
        return it->first;
    }

    // Every live base, an address inside, and the gap after each.
    void CheckAll() {
        assert_int_equal(reg.size(), live.size());
        for (const auto &[base, mapped] : live) {
            auto a = reg.Find(base);
            assert_true(a.has_value());
            assert_int_equal(a->base, base);
            auto inner = reg.Find(base + mapped - 1);
            assert_true(inner.has_value());
            assert_int_equal(inner->base, base);
            assert_false(reg.Find(base + mapped).has_value());
        }
    }
};

// Bases spread like page aligned device addresses, with a gap after each.
uint64_t BaseOf(uint64_t i) {
    return 0x100000000000ULL + i * 4 * kPage;
}

void GrowShrinkExact(void **) {
    Model m;
    constexpr uint64_t kMany = 100000;
    for (uint64_t i = 0; i < kMany; i++) {
        m.Insert(BaseOf(i), kPage * (1 + i % 3));
        // Look up recent and old entries while resizes drain.
        if (i % 97 == 0) {
            assert_true(m.reg.Find(BaseOf(i / 2)).has_value());
            assert_true(m.reg.Find(BaseOf(i)).has_value());
            assert_false(m.reg.Find(BaseOf(i + 1)).has_value());
        }
    }
    m.CheckAll();
    // Down to a handful, checking a sample as the table shrinks.
    for (uint64_t i = 0; i < kMany - 5; i++) {
        m.Remove(BaseOf(i));
        if (i % 101 == 0) {
            assert_false(m.reg.Find(BaseOf(i)).has_value());
            assert_true(m.reg.Find(BaseOf(kMany - 1)).has_value());
            assert_true(m.reg.Find(BaseOf(i + 1)).has_value());
        }
    }
    m.CheckAll();
    assert_int_equal(m.reg.size(), 5);
}

// Random inserts and removals in bursts that cross the resize thresholds
// both ways, with removals of entries still in the draining table.
void RandomBurstsExact(void **) {
    Model m;
    uint64_t next = 0;
    for (int round = 0; round < 40; round++) {
        const uint64_t target = (round % 2 == 0) ? 200 + m.rng() % 5000 : m.rng() % 50;
        while (m.live.size() < target) {
            m.Insert(BaseOf(next++), kPage);
            if (m.rng() % 4 == 0)
                m.Remove(m.AnyBase());
        }
        while (m.live.size() > target) {
            m.Remove(m.AnyBase());
            // Now and then a base that was never there, or is gone.
            if (m.rng() % 8 == 0)
                m.Remove(BaseOf(next + 1));
        }
        m.CheckAll();
    }
}

// An update of a live base (Insert of the same base) keeps one record, also
// while that record is still in the draining table.
void UpdateDuringDrain(void **) {
    Model m;
    for (uint64_t i = 0; i < 1024; i++)
        m.Insert(BaseOf(i), kPage);
    // 1024 entries: the 1025th doubles the table, and the older entries
    // drain over the next calls.
    m.Insert(BaseOf(1024), kPage);
    for (uint64_t i = 0; i < 1025; i += 7)
        m.Insert(BaseOf(i), 2 * kPage);
    m.CheckAll();
    auto a = m.reg.Find(BaseOf(0) + kPage);
    assert_true(a.has_value());
    assert_int_equal(a->mapped, 2 * kPage);
    assert_int_equal(m.reg.UsageOf(MemoryKind::kDevice).current,
                     1025 * kPage + ((1024 / 7) + 1) * kPage);
}

}  // namespace

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(GrowShrinkExact),
        cmocka_unit_test(RandomBurstsExact),
        cmocka_unit_test(UpdateDuringDrain),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
