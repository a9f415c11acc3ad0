use futures::executor::block_on;

use super::*;
use crate::core::asset::{MadeBy, NewAsset};
use crate::core::playbook::{Playbook, Status};
use crate::core::{Problem, Reason};
use crate::ops::memory::Runtime;

const ORG: &str = "acme";
const PB: &str = "pb_aaaaaaaaaaaaaaaa";
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn runtime() -> Runtime {
    let m = Runtime::default();
    let playbook = Playbook {
        id: PB.into(),
        name: "Campaigns".into(),
        description: String::new(),
        status: Status::Active,
        created_at: "2026-12-02T10:00:00.000Z".into(),
        updated_at: "2026-12-02T10:00:00.000Z".into(),
        retired_at: None,
        page: String::new(),
        created_by: None,
        updated_by: None,
        retired_by: None,
    };
    m.organization(ORG).playbooks.records.borrow_mut().insert(PB.into(), playbook);
    m
}

fn png() -> NewAsset {
    NewAsset {
        media_type: "image/png".into(),
        bytes: PNG.to_vec(),
        made_by: MadeBy::Tool { run_id: "run_1".into(), tool: "files/read_image".into() },
    }
}

fn keep_in(m: &Runtime, playbook: &str, new: NewAsset, random: [u8; 16]) -> Result<Asset, Problem> {
    block_on(keep(m, ORG, playbook, new, m.now(), random))
}

fn records(m: &Runtime) -> usize {
    m.shelf(ORG, PB).assets.rows.borrow().len()
}

#[test]
fn a_kept_asset_is_read_back_with_its_bytes() {
    let m = runtime();
    let asset = keep_in(&m, PB, png(), [3; 16]).expect("kept");
    assert_eq!(asset.created_at, "2026-12-02T10:00:00.000Z");
    assert_eq!(block_on(get(&m, ORG, PB, &asset.id)), Ok(asset.clone()));
    let (read, bytes) = block_on(content(&m, ORG, PB, &asset.id)).expect("bytes");
    assert_eq!((read, bytes.as_slice()), (asset.clone(), PNG));
    let (media_type, _) = m.bucket.objects.borrow().get(&asset.key()).cloned().expect("in the bucket");
    assert_eq!(media_type, "image/png");
}

#[test]
fn a_bucket_that_fails_leaves_no_record() {
    let m = runtime();
    m.bucket.faults.fail_on("put");
    let refused = keep_in(&m, PB, png(), [3; 16]).expect_err("the bucket is down");
    assert_eq!(refused.reason, Reason::Unavailable);
    assert_eq!(records(&m), 0, "no record names bytes that were not kept");
    assert!(keep_in(&m, PB, png(), [3; 16]).is_ok(), "it works again once the bucket answers");
}

#[test]
fn a_record_that_fails_is_not_acknowledged_and_the_retry_keeps_it_once() {
    let m = runtime();
    m.shelf(ORG, PB).assets.faults.fail_on("put");
    let refused = keep_in(&m, PB, png(), crate::core::asset::seeded("run_1/0")).expect_err("the table is down");
    assert_eq!(refused.reason, Reason::Unavailable);
    assert_eq!(records(&m), 0);
    assert_eq!(m.bucket.objects.borrow().len(), 1, "the bytes stay, named by nothing");
    let first = keep_in(&m, PB, png(), crate::core::asset::seeded("run_1/0")).expect("kept on the retry");
    let again = keep_in(&m, PB, png(), crate::core::asset::seeded("run_1/0")).expect("kept again");
    assert_eq!(first, again, "the same id with the same bytes answers the record kept first");
    assert_eq!((records(&m), m.bucket.objects.borrow().len()), (1, 1));
}

#[test]
fn bytes_that_are_not_what_they_say_are_refused_before_anything_is_written() {
    let m = runtime();
    let lie = NewAsset { bytes: b"<html>502 Bad Gateway</html>".to_vec(), ..png() };
    let refused = keep_in(&m, PB, lie, [3; 16]).expect_err("not a png");
    assert_eq!(refused.reason, Reason::InvalidInput);
    assert_eq!(refused.errors[0].pointer, "/bytes");
    assert_eq!((records(&m), m.bucket.objects.borrow().len()), (0, 0));
}

#[test]
fn an_asset_is_read_only_in_its_own_playbook() {
    let m = runtime();
    let asset = keep_in(&m, PB, png(), [3; 16]).expect("kept");
    let other = "pb_cccccccccccccccc";
    assert_eq!(block_on(get(&m, ORG, other, &asset.id)).map_err(|p| p.reason), Err(Reason::NotFound));
    assert_eq!(block_on(get(&m, "other-org", PB, &asset.id)).map_err(|p| p.reason), Err(Reason::NotFound));
    assert_eq!(block_on(get(&m, ORG, PB, "ast_zzzzzzzzzzzzzzzz")).map_err(|p| p.reason), Err(Reason::NotFound));
    assert_eq!(block_on(get(&m, ORG, PB, "../etc")).map_err(|p| p.reason), Err(Reason::NotFound));
    assert_eq!(keep_in(&m, other, png(), [4; 16]).map_err(|p| p.reason), Err(Reason::NotFound));
}

#[test]
fn bytes_that_changed_in_the_bucket_are_not_served() {
    let m = runtime();
    let asset = keep_in(&m, PB, png(), [3; 16]).expect("kept");
    m.bucket.objects.borrow_mut().insert(asset.key(), ("image/png".into(), b"\x89PNG\r\n\x1a\nother".to_vec()));
    assert_eq!(block_on(content(&m, ORG, PB, &asset.id)).map_err(|p| p.reason), Err(Reason::Internal));
}
