//! Where a page starts and ends and where its neighbours start: one plan for both paginated
//! lists, so that the pagination faults bend both the same way.

/// The pagination faults that bend a page plan.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageFaults {
    pub plus_one: bool,
    pub repeat: bool,
    pub skip: bool,
    pub cycle: bool,
    pub prev_on_first: bool,
    pub prev_off_by_one: bool,
}

/// Which items a page holds and where its next and previous pages start.
#[derive(Debug, Clone, Copy)]
pub struct PagePlan {
    pub start: usize,
    pub end: usize,
    pub next: Option<usize>,
    pub prev: Option<usize>,
}

impl PagePlan {
    /// The page at `offset` of `limit` items out of `total`, bent by `faults`.
    pub fn new(offset: usize, limit: usize, total: usize, faults: PageFaults) -> PagePlan {
        let start = offset.min(total);
        let size = if faults.plus_one { limit + 1 } else { limit };
        let end = (start + size).min(total);
        let mut next_offset = start + limit;
        if faults.skip {
            next_offset += 1;
        }
        if faults.repeat && limit > 1 {
            next_offset -= 1;
        }
        let next = if start + limit < total {
            Some(next_offset)
        } else if faults.cycle {
            Some(0)
        } else {
            None
        };
        let prev = if start > 0 {
            let back = if faults.prev_off_by_one {
                limit - 1
            } else {
                limit
            };
            Some(start.saturating_sub(back))
        } else if faults.prev_on_first {
            Some(0)
        } else {
            None
        };
        PagePlan {
            start,
            end,
            next,
            prev,
        }
    }
}
