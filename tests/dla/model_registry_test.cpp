/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Engines shared by model-instance-id (dla/model_registry.h), with a fake engine, on any machine:
 * the first user defines the instance and later ones join it; set settings that differ are refused
 * with both users and each setting named; the instance lives as long as its last user; users
 * joining and leaving 100 times disturb no other; concurrent joins make exactly one; the 17th
 * handle on a core is refused with the limit and model-instance-id as the remedy. */
#include "dla/model_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "dla/core_handles.h"

namespace {

std::atomic<int> engines_alive{0};

/* What a shared engine holds that matters here: its model, its core and a handle there. */
struct FakeEngine {
  FakeEngine () { ++engines_alive; }
  ~FakeEngine () { --engines_alive; }
  std::string model;
  int core = 0;
  dla::CoreHandles::Reservation handle;
};

using Registry = dla::ModelRegistry<FakeEngine>;

dla::SharerSettings user (const std::string &name, const std::string &model, const std::string &core = "")
{
  return {name,
          {{"model", model, !model.empty ()}, {"dla-core", core.empty () ? "0" : core, !core.empty ()}},
          {}};
}

class ModelRegistry : public testing::Test {
 protected:
  /* Makes a fake engine from the definer's settings, as the element's factory will make one. */
  Registry::Factory factory ()
  {
    return [this] (const dla::SharerSettings &d, std::shared_ptr<FakeEngine> *out) {
      if (++making_ > 1)
        ++overlapping_;
      std::this_thread::yield (); /* a longer window for other joins */
      auto e = std::make_shared<FakeEngine> ();
      e->model = d.settings[0].value;
      e->core = std::stoi (d.settings[1].value);
      dla::Status st = e->model.empty ()
                           ? dla::Status::Error (dla::Code::kSettings, d.name + ": no model set")
                           : handles_.reserve (e->core, d.name, &e->handle);
      if (st.ok ()) {
        ++made_;
        *out = std::move (e);
      }
      --making_;
      return st;
    };
  }
  dla::Status join (const std::string &id, const dla::SharerSettings &u, Registry::Lease *out)
  {
    return registry_.join (id, u, factory (), out);
  }
  void TearDown () override { EXPECT_EQ (engines_alive.load (), 0); }

  dla::CoreHandles handles_;
  Registry registry_;
  std::atomic<int> made_{0}, making_{0}, overlapping_{0};
};

TEST_F (ModelRegistry, TheFirstUserDefinesLaterOnesJoin)
{
  Registry::Lease a, b, c;
  ASSERT_TRUE (join ("cams", user ("dlainfer0", "m.bin", "1"), &a).ok ());
  ASSERT_TRUE (join ("cams", user ("dlainfer1", ""), &b).ok ()) << "only the first needs model";
  ASSERT_TRUE (join ("cams", user ("dlainfer2", "m.bin", "1"), &c).ok ()) << "the same values may be set";
  EXPECT_EQ (a.get (), b.get ());
  EXPECT_EQ (a.get (), c.get ());
  EXPECT_EQ (a->model, "m.bin");
  EXPECT_EQ (a->core, 1);
  EXPECT_EQ (made_.load (), 1);
  EXPECT_EQ (registry_.users ("cams"), (std::vector<std::string>{"dlainfer0", "dlainfer1", "dlainfer2"}));
  EXPECT_EQ (handles_.held (1), 1) << "one handle for the three";
}

TEST_F (ModelRegistry, DifferingSettingsAreRefusedNamingBoth)
{
  Registry::Lease a, b;
  ASSERT_TRUE (join ("cams", user ("dlainfer0", "m.bin", "-1"), &a).ok ());
  dla::Status st = join ("cams", user ("dlainfer1", "", "0"), &b);
  EXPECT_EQ (st.code, dla::Code::kSettings);
  EXPECT_EQ (
      st.message,
      "dlainfer1 cannot share model-instance-id 'cams' with dlainfer0, which defined it: dla-core "
      "(dlainfer0: -1, dlainfer1: 0) differs; leave them unset on dlainfer1 or set dlainfer0's values");
  EXPECT_FALSE (b);
  st = join ("cams", user ("dlainfer2", "n.bin", "0"), &b);
  EXPECT_EQ (
      st.message,
      "dlainfer2 cannot share model-instance-id 'cams' with dlainfer0, which defined it: model "
      "(dlainfer0: m.bin, dlainfer2: n.bin), dla-core (dlainfer0: -1, dlainfer2: 0) differ; leave them "
      "unset on dlainfer2 or set dlainfer0's values");
  EXPECT_EQ (registry_.users ("cams"), std::vector<std::string>{"dlainfer0"}) << "the refused did not join";
}

TEST_F (ModelRegistry, ASettingTheDefinerLeftUnsetIsItsDefault)
{
  Registry::Lease a, b;
  ASSERT_TRUE (join ("cams", user ("dlainfer0", "m.bin"), &a).ok ());
  const dla::Status st = join ("cams", user ("dlainfer1", "", "-1"), &b);
  EXPECT_NE (st.message.find ("dla-core (dlainfer0: 0 (default), dlainfer1: -1) differs"), std::string::npos)
      << st.message;
  EXPECT_TRUE (join ("cams", user ("dlainfer1", "", "0"), &b).ok ()) << "the default, set: the same";
}

TEST_F (ModelRegistry, TheInstanceLivesAsLongAsItsLastUser)
{
  Registry::Lease a, b;
  ASSERT_TRUE (join ("cams", user ("dlainfer0", "m.bin"), &a).ok ());
  ASSERT_TRUE (join ("cams", user ("dlainfer1", ""), &b).ok ());
  FakeEngine *shared = b.get ();
  a.reset (); /* the definer leaves: the other keeps the instance */
  EXPECT_EQ (engines_alive.load (), 1);
  EXPECT_EQ (registry_.users ("cams"), std::vector<std::string>{"dlainfer1"});
  Registry::Lease c;
  ASSERT_TRUE (join ("cams", user ("dlainfer2", ""), &c).ok ());
  EXPECT_EQ (c.get (), shared);
  b.reset ();
  c.reset ();
  EXPECT_EQ (engines_alive.load (), 0) << "gone with its last user";
  EXPECT_TRUE (registry_.users ("cams").empty ());
  ASSERT_TRUE (join ("cams", user ("dlainfer3", "n.bin", "1"), &a).ok ()) << "a new instance, defined anew";
  EXPECT_EQ (a->model, "n.bin");
  EXPECT_EQ (made_.load (), 2);
}

/* A later user that left `model` unset asks, at start, whether its instance is there yet (else it
 * opens at its first frame: gst/model.h) and what the definer offers it. */
TEST_F (ModelRegistry, TheDefinerIsKnownWhileTheInstanceLives)
{
  dla::SharerSettings d;
  EXPECT_FALSE (registry_.definer ("cams", &d)) << "nothing defined yet";
  dla::SharerSettings first = user ("dlainfer0", "m.bin", "1");
  first.offers = {{"labels", "colours.txt", true}};
  Registry::Lease a, b;
  ASSERT_TRUE (join ("cams", first, &a).ok ());
  ASSERT_TRUE (join ("cams", user ("dlainfer1", ""), &b).ok ());
  ASSERT_TRUE (registry_.definer ("cams", &d));
  EXPECT_EQ (d.name, "dlainfer0");
  EXPECT_EQ (d.settings[0].value, "m.bin");
  ASSERT_EQ (d.offers.size (), 1u);
  EXPECT_EQ (d.offers[0].value, "colours.txt");
  EXPECT_FALSE (registry_.definer ("other"));
  a.reset ();
  ASSERT_TRUE (registry_.definer ("cams", &d)) << "the definer left; its instance lives on";
  EXPECT_EQ (d.name, "dlainfer0");
  b.reset ();
  EXPECT_FALSE (registry_.definer ("cams")) << "gone with its last user";
}

TEST_F (ModelRegistry, AFailedMakeRegistersNothing)
{
  Registry::Lease a;
  const dla::Status st = join ("cams", user ("dlainfer0", ""), &a);
  EXPECT_EQ (st.message, "dlainfer0: no model set");
  EXPECT_TRUE (registry_.users ("cams").empty ());
  ASSERT_TRUE (join ("cams", user ("dlainfer1", "m.bin"), &a).ok ()) << "the next user defines it";
  EXPECT_EQ (registry_.users ("cams"), std::vector<std::string>{"dlainfer1"});
  EXPECT_EQ (join ("", user ("dlainfer2", "m.bin"), &a).code, dla::Code::kSettings);
}

/* Four threads join and leave 100 times each while two users hold the instance: they keep it. */
TEST_F (ModelRegistry, JoinAndLeave100TimesWhileOthersRun)
{
  Registry::Lease a, b;
  ASSERT_TRUE (join ("cams", user ("dlainfer0", "m.bin"), &a).ok ());
  ASSERT_TRUE (join ("cams", user ("dlainfer1", ""), &b).ok ());
  std::vector<std::thread> threads;
  std::atomic<int> joined{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back ([&, t] () {
      for (int i = 0; i < 100; ++i) {
        Registry::Lease l;
        ASSERT_TRUE (join ("cams", user ("churn" + std::to_string (t), i % 2 ? "" : "m.bin"), &l).ok ());
        EXPECT_EQ (l.get (), a.get ());
        ++joined;
      }
    });
  for (auto &t : threads)
    t.join ();
  EXPECT_EQ (joined.load (), 400);
  EXPECT_EQ (made_.load (), 1) << "the holders' instance, never remade";
  EXPECT_EQ (a->model, "m.bin");
  EXPECT_EQ (registry_.users ("cams"), (std::vector<std::string>{"dlainfer0", "dlainfer1"}));
  EXPECT_EQ (handles_.held (0), 1);
}

/* Eight threads join one new id at once: one instance is made, all share it. */
TEST_F (ModelRegistry, ConcurrentJoinsMakeExactlyOne)
{
  for (int round = 0; round < 20; ++round) {
    std::vector<Registry::Lease> leases (8);
    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    const std::string id = "cams" + std::to_string (round);
    for (size_t t = 0; t < leases.size (); ++t)
      threads.emplace_back ([&, t] () {
        ++ready;
        while (ready.load () < int (leases.size ()))
          std::this_thread::yield ();
        EXPECT_TRUE (join (id, user ("dlainfer" + std::to_string (t), "m.bin"), &leases[t]).ok ());
      });
    for (auto &t : threads)
      t.join ();
    for (const auto &l : leases)
      EXPECT_EQ (l.get (), leases[0].get ());
    EXPECT_EQ (made_.load (), round + 1);
    EXPECT_EQ (registry_.users (id).size (), leases.size ());
  }
  EXPECT_EQ (overlapping_.load (), 0) << "never two makes of one id at once";
}

/* 16 instances on one core work; a 17th is refused with the limit and the remedy, while a 17th
 * element joining an existing instance needs no handle. */
TEST_F (ModelRegistry, TheSeventeenthHandleOnACoreIsRefused)
{
  std::vector<Registry::Lease> leases (16);
  for (int i = 0; i < 16; ++i)
    ASSERT_TRUE (
        join ("id" + std::to_string (i), user ("dlainfer" + std::to_string (i), "m.bin"), &leases[size_t (i)])
            .ok ());
  Registry::Lease extra;
  const dla::Status st = join ("id16", user ("dlainfer16", "m.bin"), &extra);
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_EQ (st.message,
             "dlainfer16: DLA core 0 has no device handle left (this process holds 16): at most 16 device "
             "handles per DLA core; elements that run the same model can share one engine (one handle per "
             "core) by setting the same model-instance-id");
  EXPECT_TRUE (registry_.users ("id16").empty ());
  EXPECT_TRUE (join ("id3", user ("dlainfer16", ""), &extra).ok ()) << "sharing needs no handle";
  EXPECT_EQ (handles_.held (0), 16);
  extra.reset ();
  leases[3].reset (); /* id3's last user leaves: its handle is free */
  EXPECT_TRUE (join ("id16", user ("dlainfer16", "m.bin"), &extra).ok ());
}

}  // namespace
